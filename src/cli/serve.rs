//! `serve`: the board in a browser (the `web` crate), on loopback by default.

use anyhow::{Context, Result};
use std::net::IpAddr;
use std::path::PathBuf;

/// Options of `bushka serve`.
#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// Address to listen on; anything but loopback lets other machines in.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: IpAddr,
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Open the page in the default browser.
    #[arg(long)]
    pub open: bool,
    /// Watch a self-play tournament's PDN output while it is played.
    #[arg(long, value_name = "PDN")]
    pub watch: Option<PathBuf>,
    /// The tournament's JSON summary (`bushka selfplay --json`), shown with --watch.
    #[arg(long, value_name = "JSON", requires = "watch")]
    pub summary: Option<PathBuf>,
}

/// `bushka serve`.
pub fn serve(args: &ServeArgs) -> Result<()> {
    if let Some(pdn) = &args.watch {
        let meta = std::fs::metadata(pdn).with_context(|| format!("--watch {}", pdn.display()))?;
        if meta.is_dir() {
            anyhow::bail!("--watch {}: a folder, not a PDN file", pdn.display());
        }
        // A pipe would hold every look at the panel; a device may not end.
        if !meta.is_file() {
            anyhow::bail!(
                "--watch {}: not a regular file (the PDN file self-play writes)",
                pdn.display()
            );
        }
    }
    if web::is_exposed(args.host) {
        eprintln!(
            "warning: listening on {}, which other machines can reach: anyone who can connect can use this engine",
            args.host
        );
    }
    let config = web::Config {
        host: args.host,
        port: args.port,
        watch: args.watch.clone().map(|pdn| web::watch::WatchFiles {
            pdn,
            summary: args.summary.clone(),
        }),
    };
    let open = args.open;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the server's runtime")?;
    let served = runtime
        .block_on(web::serve(config, |addr| {
            let url = format!("http://{addr}/");
            println!("serving on {url} (Ctrl-C to stop)");
            if open {
                open_browser(&url);
            }
        }))
        .with_context(|| format!("serving on {}:{}", args.host, args.port));
    // The searches were told to stop; a blocking task still running is
    // not waited for long.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    served
}

/// Asks the desktop to open `url`; a failure is reported, not fatal.
fn open_browser(url: &str) {
    let program = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    if let Err(e) = std::process::Command::new(program).arg(url).spawn() {
        eprintln!("warning: could not open a browser ({program}: {e}); open {url} yourself");
    }
}
