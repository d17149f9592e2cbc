//! Placeholder: to be declared.
