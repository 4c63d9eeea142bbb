//! Evaluation tuning (issue 7).
