//! Hub protocol sessions: each input is a whole script of lines, read by
//! the hub's line reader and fed to one hub, with searches kept tiny and
//! hash, threads, weights and tb values bounded (checks:
//! `fuzz_support::check_hub_script`, which `cargo test` also runs on the
//! committed corpus).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::cell::RefCell;

thread_local! {
    /// One hub for the whole run (the reset gives it a 1 MiB table); it is
    /// reset before every script.
    static HUB: RefCell<Option<(engine::hub::Hub, fuzz_support::HubSink)>> =
        const { RefCell::new(None) };
}

fuzz_target!(|data: &[u8]| {
    HUB.with(|cell| {
        let mut cell = cell.borrow_mut();
        let (hub, sink) = cell.get_or_insert_with(fuzz_support::new_hub);
        fuzz_support::check_hub_script(hub, sink, data);
    });
});
