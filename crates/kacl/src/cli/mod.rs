//! The admin CLI subcommands.

pub mod acls;
