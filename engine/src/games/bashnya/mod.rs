//! Bashnya (Russian column draughts): RULES.md section 2.
