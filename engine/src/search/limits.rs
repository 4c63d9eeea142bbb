//! What bounds a search: depth, nodes, time per move, a game clock, or nothing.

use std::time::Duration;

/// A player's clock: time left and increment per move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Time left on the clock.
    pub time: Duration,
    /// Added after each move.
    pub inc: Duration,
    /// Moves to make before the clock is topped up (a `MOVES/BASE+INC`
    /// control); `None` when the rest of the game must be played on `time`.
    pub moves_to_go: Option<u32>,
}

impl Clock {
    /// A clock with `time` left and `inc` added per move, for the rest of the game.
    pub fn new(time: Duration, inc: Duration) -> Clock {
        Clock {
            time,
            inc,
            moves_to_go: None,
        }
    }

    /// The soft and hard time for the next move (see [`Limits::deadlines`]).
    ///
    /// A reserve (twice the protocol margin and one increment, at most a
    /// quarter of the clock) is kept back; the rest
    /// is shared over the moves still expected: `moves_to_go` when
    /// the period ends sooner, else [`HORIZON`] moves; the increment of this
    /// move is spent almost whole. The soft limit (no new iteration after it)
    /// is three fifths of that share; the hard limit (abort) is three times
    /// the share, and never more than a third of the usable time (the time
    /// left less the reserve), a half of it when two moves remain in the
    /// period, three quarters when one does.
    pub fn allocate(&self) -> (Duration, Duration) {
        // A reserve of one increment (up to a quarter of the clock) stays on
        // the clock besides the margin: with small increments the time left
        // settles near a few increments, where a stall of the machine would
        // otherwise lose on time.
        let reserve = MARGIN * 2 + self.inc.min(self.time / 4);
        let usable = self.time.saturating_sub(reserve);
        let horizon = self.moves_to_go.map_or(HORIZON, |m| m.clamp(1, HORIZON));
        let budget = usable / horizon + self.inc * 3 / 4;
        let cap = match self.moves_to_go {
            Some(1) => usable * 3 / 4,
            Some(2) => usable / 2,
            _ => usable / 3,
        };
        let hard = (budget * 3).min(cap).max(Duration::from_millis(1));
        let soft = (budget * 3 / 5).min(hard);
        (soft, hard)
    }
}

/// Moves the clock is spread over when no period end is nearer.
pub const HORIZON: u32 = 25;

/// Search limits; with none set the search runs until stopped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Deepest iteration to complete.
    pub depth: Option<u32>,
    /// Nodes to search (at one thread exact once the first iteration, which
    /// always completes, is done; approximate with more threads).
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
            let (s, h) = c.allocate();
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
            clock: Some(Clock::new(Duration::from_secs(60), Duration::from_secs(1))),
            ..Limits::default()
        };
        let d = l.deadlines();
        let (s, h) = (d.soft.unwrap(), d.hard.unwrap());
        assert!(s <= h && h <= Duration::from_secs(20) && s >= Duration::from_millis(500));
        let tiny = Limits {
            clock: Some(Clock::new(Duration::from_millis(5), Duration::ZERO)),
            ..Limits::default()
        };
        assert!(tiny.deadlines().hard.unwrap() <= Duration::from_millis(5));
        assert_eq!(Limits::depth(3).deadlines().hard, None);
    }

    #[test]
    fn the_last_moves_of_a_period_get_more_but_never_the_whole_clock() {
        let period = |m| Clock {
            moves_to_go: m,
            ..Clock::new(Duration::from_secs(10), Duration::ZERO)
        };
        let (s_open, h_open) = period(None).allocate();
        let (s_one, h_one) = period(Some(1)).allocate();
        let (s_five, _) = period(Some(5)).allocate();
        assert!(s_one > s_five && s_five > s_open);
        assert!(h_one < Duration::from_secs(10) && h_open <= Duration::from_secs(10) / 3);
        assert!(s_one <= h_one);
    }
}
