//! The web server's requests: arbitrary requests through the whole router
//! (axum's extractors, our JSON bodies and queries, the game operations).
//!
//! Input: the first line is `METHOD /path?query`, the rest is the body; `$S`
//! in either stands for a live session's id (a Bushka game is started
//! first, so moves, undo, PDN and pictures reach a real game). Checked: no
//! panic, never a 5xx, every refusal (but to HEAD, which has no body) is a
//! JSON `{"error": "..."}` with a one-line message. Searches are left out
//! (`/api/engine` and `/api/analyse` run for as long as they are allowed,
//! which is up to minutes).
#![no_main]

use axum::body::Body;
use axum::http::Request;
use libfuzzer_sys::fuzz_target;
use tower::ServiceExt;
use web::{router, AppState};

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
    let (head, body) = text.split_once('\n').unwrap_or((text, ""));
    let Some((method, uri)) = head.split_once(' ') else {
        return;
    };
    if uri.contains("engine") || uri.contains("analyse") || !uri.starts_with('/') {
        return;
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        let app = AppState::new(None);
        let new = Request::post("/api/new")
            .header("content-type", "application/json")
            .body(Body::from(r#"{"game":"bushka"}"#))
            .unwrap();
        let (status, reply) = send(&app, new).await;
        assert_eq!(status, 200);
        let v: serde_json::Value = serde_json::from_slice(&reply).unwrap();
        let id = v["session"].as_str().unwrap().to_string();
        let uri = uri.replace("$S", &id);
        let body = body.replace("$S", &id);
        // As the board sends them: bodies declared JSON.
        let Ok(req) = Request::builder()
            .method(method)
            .uri(uri.as_str())
            .header("content-type", "application/json")
            .body(Body::from(body))
        else {
            return;
        };
        let (status, reply) = send(&app, req).await;
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
        }
    });
});
