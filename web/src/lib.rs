//! `bushka serve`: a local web server and page to play, analyse and replay
//! Bushka and Bashnya games and to watch a self-play tournament.
//!
//! The page's files are embedded in the binary. The JSON API is described
//! in `docs/web.md`; [`router`] builds it, [`serve`] runs it.

mod api;

/// Bounds on requests and searches.
pub mod api_limits {
    pub use crate::api::{MAX_ANALYSIS_MS, MAX_BODY, MAX_DEPTH, MAX_MOVETIME_MS, MAX_PDN_GAMES};
}
pub mod sessions;
pub mod svg;
pub mod table;
pub mod view;
pub mod watch;

pub use api::router;
pub use sessions::Sessions;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

/// A request the API refuses, with the status and the sentence the page shows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    /// The HTTP status (4xx for a bad request; 500 when a search thread
    /// failed; 503 when a search's table cannot be had).
    pub status: StatusCode,
    /// What was wrong, in one line.
    pub message: String,
}

impl ApiError {
    /// A 400: the request itself is wrong.
    pub fn bad(message: impl Into<String>) -> Self {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            message: message.into(),
        }
    }

    /// A 404: it names something that does not exist.
    pub fn not_found(message: impl Into<String>) -> Self {
        ApiError {
            status: StatusCode::NOT_FOUND,
            message: message.into(),
        }
    }

    /// A 500: a server thread failed (a bug, not the request's fault).
    pub fn internal(message: impl Into<String>) -> Self {
        ApiError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            message: message.into(),
        }
    }

    /// A 409: the game is not in a state that allows it.
    pub fn conflict(message: impl Into<String>) -> Self {
        ApiError {
            status: StatusCode::CONFLICT,
            message: message.into(),
        }
    }

    /// A 503: the server cannot serve it now (it is stopping, or lacks
    /// the memory).
    pub fn unavailable(message: impl Into<String>) -> Self {
        ApiError {
            status: StatusCode::SERVICE_UNAVAILABLE,
            message: message.into(),
        }
    }

    /// A 503: the server is stopping.
    pub fn stopping() -> Self {
        ApiError::unavailable("the server is stopping")
    }
}

/// The longest error message sent, in characters: a request's text quoted
/// in it is cut.
const MAX_ERROR: usize = 300;

impl IntoResponse for ApiError {
    /// The JSON answer; the message is kept to one line (a request's text
    /// quoted in it may hold line breaks and other control characters) of at
    /// most [`MAX_ERROR`] characters.
    fn into_response(self) -> Response {
        let line = engine::files::quoted(&self.message, MAX_ERROR);
        (
            self.status,
            axum::Json(serde_json::json!({ "error": line })),
        )
            .into_response()
    }
}

/// What `bushka serve` was asked for.
#[derive(Clone, Debug)]
pub struct Config {
    /// Address to bind (loopback by default).
    pub host: IpAddr,
    /// Port to bind (0: any free port).
    pub port: u16,
    /// A self-play PDN file to watch, with its JSON summary.
    pub watch: Option<watch::WatchFiles>,
}

/// The server's shared state: the sessions and what is watched.
pub struct AppState {
    /// Every tab's game.
    pub sessions: Sessions,
    /// The tournament shown by the watch panel.
    pub watch: Option<watch::Watcher>,
    /// Served on a loopback address: a request naming another host (a page
    /// of another site that had its name point here) is refused.
    pub local_only: bool,
    /// PDN texts being read (`/api/pdn`): each holds tens of megabytes
    /// while it is read, so only [`PDN_LOADS`] are read at once; another
    /// is answered 503.
    pub pdn_loads: Arc<tokio::sync::Semaphore>,
}

/// The most PDN texts read at once.
pub const PDN_LOADS: usize = 2;

impl AppState {
    /// A fresh state, served on a loopback address.
    pub fn new(watch: Option<watch::WatchFiles>) -> Arc<Self> {
        Self::serving(watch, true)
    }

    /// A fresh state; `local_only` when served on a loopback address.
    pub fn serving(watch: Option<watch::WatchFiles>, local_only: bool) -> Arc<Self> {
        Arc::new(AppState {
            sessions: Sessions::default(),
            watch: watch.map(watch::Watcher::new),
            local_only,
            pdn_loads: Arc::new(tokio::sync::Semaphore::new(PDN_LOADS)),
        })
    }
}

/// True when a `Host` header names this machine's loopback interface
/// (`localhost`, `127.x.x.x` or `[::1]`, with or without a port), and
/// nothing else.
pub fn is_loopback_host(host: &str) -> bool {
    let (name, port) = match host.strip_prefix('[') {
        Some(rest) => match rest.split_once(']') {
            Some((name, after)) => (name, after),
            None => return false,
        },
        None => match host.find(':') {
            Some(i) => (&host[..i], &host[i..]),
            None => (host, ""),
        },
    };
    let port_ok = port.is_empty()
        || port.strip_prefix(':').is_some_and(|p| {
            !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit())
        });
    port_ok
        && (name.eq_ignore_ascii_case("localhost")
            || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback()))
}

/// True for an address that other machines can reach.
pub fn is_exposed(host: IpAddr) -> bool {
    !host.is_loopback()
}

/// How long a stopping server waits for its open requests and streams.
pub const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// Binds `config`'s address, calls `ready` with the bound address, and
/// serves until the process is interrupted (Ctrl-C).
pub async fn serve(config: Config, ready: impl FnOnce(SocketAddr)) -> std::io::Result<()> {
    serve_until(config, ready, async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await
}

/// [`serve`], stopping when `stop` completes: no connection is taken any
/// more, a request for a session is answered 503, every search is stopped
/// (an analysis stream then ends with its `done` event), and the requests
/// under way get [`SHUTDOWN_GRACE`] to finish before the server returns
/// anyway.
pub async fn serve_until(
    config: Config,
    ready: impl FnOnce(SocketAddr),
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind((config.host, config.port)).await?;
    let addr = listener.local_addr()?;
    let state = AppState::serving(config.watch, !is_exposed(config.host));
    sessions::spawn_sweeper(Arc::clone(&state));
    ready(addr);
    let (stopping, stopped) = tokio::sync::watch::channel(false);
    let stopper = Arc::clone(&state);
    tokio::spawn(async move {
        stop.await;
        // No new connection, then no new search and every search stopped.
        let _ = stopping.send(true);
        stopper.sessions.stop_all();
    });
    let mut graceful = stopped.clone();
    let server = axum::serve(listener, router(state)).with_graceful_shutdown(async move {
        let _ = graceful.wait_for(|s| *s).await;
    });
    let mut deadline = stopped;
    tokio::select! {
        r = server => r,
        () = async move {
            let _ = deadline.wait_for(|s| *s).await;
            tokio::time::sleep(SHUTDOWN_GRACE).await;
        } => Ok(()),
    }
}
