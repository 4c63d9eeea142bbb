//! What bounds a search: depth, nodes, time per move, a game clock, or nothing.

use std::time::Duration;

/// A player's clock: time left and increment per move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Time left on the clock.
    pub time: Duration,
    /// Added after each move.
    pub inc: Duration,
}

/// Search limits; with none set the search runs until stopped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Deepest iteration to complete.
    pub depth: Option<u32>,
    /// Nodes to search (exact at one thread, approximate with more).
    pub nodes: Option<u64>,
    /// Fixed time for this move.
    pub movetime: Option<Duration>,
    /// Game clock: the search budgets its own time.
    pub clock: Option<Clock>,
}

/// Deadlines derived from the limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadlines {
    /// Do not start another iteration after this.
    pub soft: Option<Duration>,
    /// Abort the search at this point.
    pub hard: Option<Duration>,
}

/// Time kept back for the protocol and the operating system.
const MARGIN: Duration = Duration::from_millis(10);

impl Limits {
    /// Searches to a fixed depth.
    pub fn depth(d: u32) -> Limits {
        Limits {
            depth: Some(d),
            ..Limits::default()
        }
    }

    /// Searches a fixed number of nodes.
    pub fn nodes(n: u64) -> Limits {
        Limits {
            nodes: Some(n),
            ..Limits::default()
        }
    }

    /// Searches for a fixed time.
    pub fn movetime(ms: u64) -> Limits {
        Limits {
            movetime: Some(Duration::from_millis(ms)),
            ..Limits::default()
        }
    }

    /// The soft and hard deadlines of this search.
    pub fn deadlines(&self) -> Deadlines {
        let mut soft = None;
        let mut hard = None;
        if let Some(m) = self.movetime {
            let m = m.saturating_sub(MARGIN).max(Duration::from_millis(1));
            soft = Some(m);
            hard = Some(m);
        }
        if let Some(c) = self.clock {
            let usable = c.time.saturating_sub(MARGIN * 2);
            let budget = usable / 25 + c.inc * 3 / 4;
            let h = (budget * 3).min(usable / 3).max(Duration::from_millis(1));
            let s = (budget * 3 / 5).min(h);
            soft = Some(soft.map_or(s, |x: Duration| x.min(s)));
            hard = Some(hard.map_or(h, |x: Duration| x.min(h)));
        }
        Deadlines { soft, hard }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_budget_stays_within_the_clock() {
        let l = Limits {
            clock: Some(Clock {
                time: Duration::from_secs(60),
                inc: Duration::from_secs(1),
            }),
            ..Limits::default()
        };
        let d = l.deadlines();
        let (s, h) = (d.soft.unwrap(), d.hard.unwrap());
        assert!(s <= h && h <= Duration::from_secs(20) && s >= Duration::from_millis(500));
        let tiny = Limits {
            clock: Some(Clock {
                time: Duration::from_millis(5),
                inc: Duration::ZERO,
            }),
            ..Limits::default()
        };
        assert!(tiny.deadlines().hard.unwrap() <= Duration::from_millis(5));
        assert_eq!(Limits::depth(3).deadlines().hard, None);
    }
}
