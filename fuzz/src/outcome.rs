//! What a harness run did: each step's name and how it ended.

use zom::{ErrorCode, Result};

/// The steps of one run, in order, each with `None` (succeeded) or its error code.
#[derive(Debug, Default)]
pub struct Outcome {
    /// (step, error code if it failed)
    pub steps: Vec<(&'static str, Option<ErrorCode>)>,
}

impl Outcome {
    /// Records a step's result and gives back its value.
    pub fn step<T>(&mut self, name: &'static str, result: Result<T>) -> Option<T> {
        match result {
            Ok(v) => {
                self.steps.push((name, None));
                Some(v)
            }
            Err(e) => {
                self.steps.push((name, Some(e.code)));
                None
            }
        }
    }

    /// How the first step called `name` ended: `Some(None)` succeeded, `Some(Some(code))`
    /// failed with `code`, `None` never ran.
    pub fn result_of(&self, name: &str) -> Option<Option<ErrorCode>> {
        self.steps.iter().find(|(n, _)| *n == name).map(|(_, c)| *c)
    }
}
