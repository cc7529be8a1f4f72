//! Command-line parsing and the commands.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// neardup: find and drop near-duplicate web pages.
#[derive(Debug, Parser)]
#[command(name = "neardup", version, about)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print the main text neardup sees in each page.
    Extract {
        /// HTML files.
        files: Vec<std::path::PathBuf>,
    },
}

/// Parses arguments and runs the command.
pub fn run() -> anyhow::Result<ExitCode> {
    let args = Args::parse();
    match args.command {
        Command::Extract { files } => {
            let config = neardup::Config::default();
            for f in files {
                let body = std::fs::read(&f)?;
                let d = neardup::decode::decode(&body, None);
                let e = neardup::extract::extract(&d.text, None, &config.extract);
                println!("{}", e.text(config.extract.mode));
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
