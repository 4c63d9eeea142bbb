//! `bushka`: the command-line program. A thin dispatcher over the libraries.

mod cli;

fn main() {
    std::process::exit(cli::run());
}
