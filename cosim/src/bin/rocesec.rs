//! `rocesec` command-line tool.
fn main() {}
