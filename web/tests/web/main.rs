//! The web crate's integration tests: the JSON API through the router, and
//! the page in headless Chromium through WebDriver.

mod api;
mod browser;
mod fuzz_input;
