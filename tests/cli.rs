//! Command-line surface that is not a command of its own: shell completions,
//! and the `--index` parser every command shares.

use crate::util::Dir;

/// The bash script loads in bash and completes a subcommand prefix and a
/// flag of that subcommand: it is generated from the parser, so a renamed
/// command or flag shows up here.
#[test]
fn bash_completion_completes_subcommands_and_their_flags() {
    let dir = Dir::new();
    let run = dir.run(&["completions", "bash"]).expect_code(0);
    std::fs::write(dir.join("neardup.bash"), run.stdout()).expect("write script");
    let complete = |words: &str, cword: usize| {
        let script = format!(
            "source ./neardup.bash; COMP_WORDS=({words}); COMP_CWORD={cword}; \
             COMP_LINE='{words}'; COMP_POINT=${{#COMP_LINE}}; \
             _neardup neardup \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"; \
             printf '%s\\n' \"${{COMPREPLY[@]}}\""
        );
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(script)
            .current_dir(dir.path())
            .output()
            .expect("run bash");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let mut sub = complete("neardup de", 1);
    sub.sort();
    assert_eq!(sub, ["dedup", "detectors"]);
    let flags = complete("neardup crawl --res", 2);
    assert_eq!(flags, ["--resume"]);
}

/// Each supported shell gets a script naming the commands; an unknown
/// shell is a usage error (exit 2) that lists the valid ones.
#[test]
fn completions_for_other_shells_and_a_clear_error_for_unknown_ones() {
    let dir = Dir::new();
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let out = dir.run(&["completions", shell]).expect_code(0).stdout();
        for command in ["dedup", "crawl", "serve", "report"] {
            assert!(out.contains(command), "{shell} script lacks {command}");
        }
    }
    let err = dir.run(&["completions", "tcsh"]).expect_code(2).stderr();
    assert!(
        err.contains("possible values") && err.contains("bash"),
        "{err}"
    );
}

/// `--index` is parsed once, the same way, by every command that takes it:
/// a `scheme://` value must be a Redis URL, and a bad one is refused before
/// anything is opened or created, without echoing a password.
#[test]
fn every_command_parses_index_the_same_way() {
    let dir = Dir::new();
    let commands: [&[&str]; 4] = [
        &["dedup", "in", "--out", "o"],
        &["crawl", "--seed", "http://127.0.0.1:9/", "--out", "c"],
        &["serve", "--listen", "127.0.0.1:0"],
        &["export", "--out", "x.parquet"],
    ];
    for command in commands {
        let with = |index: &str| {
            let mut args = command.to_vec();
            args.extend(["--index", index]);
            dir.run(&args).expect_code(2).stderr()
        };
        let err = with("http://example.org/index");
        assert!(
            err.contains("invalid index: ")
                && err.contains("(--index)")
                && err.contains("unsupported scheme `http://`"),
            "{command:?}: {err}"
        );
        let err = with("redis://user:secret@127.0.0.1:1/0?nx=a");
        assert!(
            err.contains("unknown parameter \"nx\""),
            "{command:?}: {err}"
        );
        assert!(!err.contains("secret"), "{command:?}: {err}");
        let err = with("redis://127.0.0.1:1/0?ns=a%20b");
        assert!(err.contains("namespace"), "{command:?}: {err}");
    }
    // Nothing was created on the way.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
