//! Command-line surface that is not a command of its own: shell completions.

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
