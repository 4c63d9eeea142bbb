//! The web server's requests: arbitrary requests through the whole router
//! (axum's extractors, our JSON bodies and queries, the game operations, the
//! searches and the watch panel).
//!
//! Input: read by `web/tests/web/fuzz_input.rs` (included below): one
//! request or several separated by `===` lines, the first 16 sent in order
//! to one server. A request's first line is `METHOD /path?query`, the rest is the
//! body; `$S` in either stands for a live session's id (a Bushka game is
//! started first, so moves, undo, PDN, pictures and searches reach a real
//! game); a `/api/watch` request's body ends at a `---` line, after which
//! comes the watched file's text from then on (without it the file keeps
//! what it held, empty at the start). Searches are cut to 20 ms.
//! Checked after every request: no panic, never a 5xx, every refusal (but to
//! HEAD, which has no body) is a JSON `{"error": "..."}` with a one-line
//! message, and every game a loaded PDN could not replay is named in one
//! line (`errors`).
#![no_main]

use axum::body::Body;
use axum::http::Request;
use libfuzzer_sys::fuzz_target;
use tower::ServiceExt;
use web::{router, AppState};

#[path = "../../web/tests/web/fuzz_input.rs"]
mod fuzz_input;

async fn send(app: &std::sync::Arc<AppState>, req: Request<Body>) -> (u16, Vec<u8>) {
    let resp = router(std::sync::Arc::clone(app))
        .oneshot(req)
        .await
        .expect("infallible");
    let status = resp.status().as_u16();
    let body = axum::body::to_bytes(resp.into_body(), 16 << 20)
        .await
        .unwrap_or_default();
    (status, body.to_vec())
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // Timers on: an analysis answers with server-sent events, which keep
    // the connection alive on a timer.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    rt.block_on(async {
        // A first look without a session: only an input with a request
        // goes on (the session's id is filled in below).
        if fuzz_input::read_inputs(text, "").is_empty() {
            return;
        }
        let watch = watched_files();
        let app = AppState::new(Some(watch.clone()));
        let new = Request::post("/api/new")
            .header("content-type", "application/json")
            .body(Body::from(r#"{"game":"bushka"}"#))
            .unwrap();
        let (status, reply) = send(&app, new).await;
        assert_eq!(status, 200);
        let v: serde_json::Value = serde_json::from_slice(&reply).unwrap();
        let id = v["session"].as_str().unwrap().to_string();
        // The watched files exist from the start (empty until a request
        // gives their text).
        write_watched(&watch, "");
        for input in fuzz_input::read_inputs(text, &id) {
            if let Some(text) = &input.watched {
                write_watched(&watch, text);
            }
            check(&app, input).await;
        }
        let _ = std::fs::remove_dir_all(watch.pdn.parent().expect("a folder"));
    });
});

/// Sends one request and checks its answer: never a 5xx, every refusal
/// (but to HEAD) a one-line JSON error.
async fn check(app: &std::sync::Arc<AppState>, input: fuzz_input::Input) {
    let (method, uri) = (input.method, input.uri);
    // As the board sends them: bodies declared JSON.
    let Ok(req) = Request::builder()
        .method(method.as_str())
        .uri(uri.as_str())
        .header("content-type", "application/json")
        .body(Body::from(input.body))
    else {
        return;
    };
    let (status, reply) = send(app, req).await;
    assert!(
        status < 500,
        "{status} for {method} {uri}: {}",
        String::from_utf8_lossy(&reply)
    );
    // A HEAD answer has no body by HTTP's rules.
    if status >= 400 && !method.eq_ignore_ascii_case("HEAD") {
        let v: serde_json::Value = serde_json::from_slice(&reply).unwrap_or_else(|_| {
            panic!(
                "a {status} that is not JSON: {}",
                String::from_utf8_lossy(&reply)
            )
        });
        let message = v["error"].as_str().expect("an error message");
        assert!(!message.is_empty(), "an empty error message");
        fuzz_support::assert_one_line(message);
    } else if let Ok(v) = serde_json::from_slice::<serde_json::Value>(&reply) {
        // A loaded PDN names the games it could not replay, one line each.
        for error in v["errors"].as_array().into_iter().flatten() {
            fuzz_support::assert_one_line(error.as_str().expect("an error text"));
        }
    }
}

/// Puts `text` in the watched PDN file and its summary.
fn write_watched(watch: &web::watch::WatchFiles, text: &str) {
    std::fs::write(&watch.pdn, text).expect("the watched file");
    if let Some(summary) = &watch.summary {
        std::fs::write(summary, text).expect("the watched summary");
    }
}

/// This process's watched files (a folder of its own, in memory when it can).
fn watched_files() -> web::watch::WatchFiles {
    let dir = fuzz_support::input_dir("web");
    web::watch::WatchFiles {
        pdn: dir.join("run.pdn"),
        summary: Some(dir.join("run.json")),
    }
}
