//! Unit mode's options (`gen --entry NAME`); the mode itself is
//! `walkdown_driver::unit`.

use walkdown_driver::unit::UnitOptions;
use walkdown_unit::Settings;

/// Options of unit mode.
#[derive(clap::Args, Debug, Clone)]
pub struct UnitArgs {
    /// Unit mode: test this function directly; its parameters are inputs, pointers to structs are built by lazy initialization (null, a fresh object, or an alias of an earlier one).
    #[arg(long)]
    pub entry: Option<String>,
    /// Unit mode: at most this many struct objects per test.
    #[arg(long, default_value_t = Settings::default().max_objects)]
    pub max_objects: u32,
    /// Unit mode: struct objects at most this many pointers away from an argument.
    #[arg(long, default_value_t = Settings::default().max_depth)]
    pub max_depth: u32,
    /// Unit mode: arrays behind pointers have 1 to this many elements.
    #[arg(long, default_value_t = Settings::default().max_array)]
    pub max_array: u32,
}

impl UnitArgs {
    /// The driver's options, when `--entry` is given.
    pub fn options(&self) -> Option<UnitOptions> {
        let entry = self.entry.clone()?;
        Some(UnitOptions { entry, max_objects: self.max_objects, max_depth: self.max_depth, max_array: self.max_array })
    }
}
