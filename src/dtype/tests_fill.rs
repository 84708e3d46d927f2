//! Fill value tests.
