//! Per-tab games: each tab holds a session id; a session keeps one game,
//! the PDN it last loaded, and the stop flag of its running search.

use crate::table::{self, Table};
use crate::{ApiError, AppState};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Sessions kept at most; a new one beyond that ends the least recently used.
pub const MAX_SESSIONS: usize = 64;
/// A session not used for this long ends (its search is stopped).
pub const IDLE: Duration = Duration::from_secs(30 * 60);
/// How often idle sessions are looked for.
const SWEEP: Duration = Duration::from_secs(60);

/// One tab's game.
pub struct Session {
    /// The game on the board.
    pub table: Box<dyn Table>,
    /// Counts changes to the game, so a search result can tell it is stale.
    pub version: u64,
    /// Games of the PDN text last loaded, each as its own PDN text (shared,
    /// so that a game being opened can tell the list was replaced meanwhile).
    pub loaded: Arc<Vec<String>>,
    /// Stop flag of the search running for this session.
    pub search: Option<Arc<AtomicBool>>,
    touched: Instant,
}

impl Session {
    /// Stops the running search, if any.
    pub fn stop_search(&mut self) {
        if let Some(flag) = self.search.take() {
            flag.store(true, Relaxed);
        }
    }

    /// A new stop flag for a search about to start (the old one is stopped).
    pub fn new_search(&mut self) -> Arc<AtomicBool> {
        self.stop_search();
        let flag = Arc::new(AtomicBool::new(false));
        self.search = Some(Arc::clone(&flag));
        flag
    }

    /// Replaces the game (stopping any search).
    pub fn set_table(&mut self, table: Box<dyn Table>) {
        self.stop_search();
        self.table = table;
        self.version += 1;
    }

    /// Marks a change to the game (stopping any search).
    pub fn changed(&mut self) {
        self.stop_search();
        self.version += 1;
    }
}

/// Every session, by id.
#[derive(Default)]
pub struct Sessions {
    map: Mutex<HashMap<String, Session>>,
    /// Set once the server stops: no session is used any more.
    closed: AtomicBool,
}

impl Sessions {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Session>> {
        self.map
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Runs `f` on the session `id`.
    pub fn with<T>(
        &self,
        id: &str,
        f: impl FnOnce(&mut Session) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        let mut map = self.lock();
        // Read under the lock: once `stop_all` has run, no search starts.
        if self.closed.load(Relaxed) {
            return Err(ApiError::stopping());
        }
        let session = map.get_mut(id).ok_or_else(|| unknown(id))?;
        session.touched = Instant::now();
        f(session)
    }

    /// Puts `table` in session `id` (a new session when `id` is `None` or
    /// unknown); returns the session's id.
    pub fn put(&self, id: Option<&str>, table: Box<dyn Table>) -> Result<String, ApiError> {
        self.put_with(id, table, |id, _| Ok(id.to_string()))
    }

    /// Puts `table` in session `id` as [`Sessions::put`] does, then runs `f`
    /// on the session's id and the session, under the same lock: no other
    /// request comes between.
    pub fn put_with<T>(
        &self,
        id: Option<&str>,
        table: Box<dyn Table>,
        f: impl FnOnce(&str, &mut Session) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        let mut map = self.lock();
        if self.closed.load(Relaxed) {
            return Err(ApiError::stopping());
        }
        if let Some((id, s)) = id.and_then(|id| map.get_mut(id).map(|s| (id, s))) {
            s.set_table(table);
            s.touched = Instant::now();
            return f(id, s);
        }
        if map.len() >= MAX_SESSIONS {
            let oldest = map
                .iter()
                .min_by_key(|(_, s)| s.touched)
                .map(|(k, _)| k.clone());
            if let Some(mut s) = oldest.and_then(|k| map.remove(&k)) {
                s.stop_search();
            }
        }
        let id = format!("{:032x}", rand::random::<u128>());
        let s = map.entry(id.clone()).or_insert(Session {
            table,
            version: 0,
            loaded: Arc::default(),
            search: None,
            touched: Instant::now(),
        });
        f(&id, s)
    }

    /// Ends the sessions idle for longer than `idle`; returns how many.
    pub fn sweep(&self, idle: Duration) -> usize {
        let mut map = self.lock();
        let before = map.len();
        map.retain(|_, s| {
            let keep = s.touched.elapsed() < idle;
            if !keep {
                s.stop_search();
            }
            keep
        });
        before - map.len()
    }

    /// Stops every session's search, and refuses any further use of a
    /// session (the server is stopping).
    pub fn stop_all(&self) {
        let mut map = self.lock();
        self.closed.store(true, Relaxed);
        for s in map.values_mut() {
            s.stop_search();
        }
    }

    /// Number of live sessions.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// True when no session is live.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The error for a session id that is not (or no longer) known.
fn unknown(id: &str) -> ApiError {
    let shown: String = id.chars().take(40).collect();
    ApiError::not_found(format!(
        "unknown session '{shown}': it ended or expired; start a new game"
    ))
}

/// Ends idle sessions in the background.
pub fn spawn_sweeper(state: Arc<AppState>) {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(SWEEP);
        loop {
            tick.tick().await;
            state.sessions.sweep(IDLE);
        }
    });
}

/// A new game for a session: `game` names it, `position` is a position text
/// (or `start`).
pub fn new_table(game: &str, position: Option<&str>) -> Result<Box<dyn Table>, ApiError> {
    let kind = game.parse().map_err(ApiError::bad)?;
    table::new_table(kind, position)
}
