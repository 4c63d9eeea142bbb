//! `bushka`: the command-line program. A thin dispatcher over the libraries.

mod cli;
mod cpu;

fn main() {
    // Before anything else: a processor without the instructions this build
    // uses gets one line naming them, not an illegal-instruction crash.
    if let Some(error) = cpu::check() {
        eprintln!("{error}");
        std::process::exit(3);
    }
    std::process::exit(cli::run());
}
