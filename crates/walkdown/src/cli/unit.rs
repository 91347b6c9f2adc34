//! Unit mode's options (`gen --entry NAME`); the mode itself is
//! `walkdown_driver::unit`, the API's contract `walkdown_unit::contract`.

use walkdown_driver::unit::UnitOptions;
use walkdown_unit::{ContractMode, ContractOptions, Settings};

/// What unit mode does with the API's contract (`--contract`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ContractArg {
    /// Every test keeps the contract: pointers it says are not NULL are never NULL, buffers have their lengths, structs are made by their initializers, preconditions are assumed.
    #[default]
    Assume,
    /// Tests may break the contract (a choice each); an error reached only by breaking a clause is reported as needing a precondition the API's contract excludes, never as confirmed.
    Report,
}

/// Options of unit mode.
#[derive(clap::Args, Debug, Clone)]
pub struct UnitArgs {
    /// Unit mode: test this function directly; its parameters are inputs, pointers to structs are built by lazy initialization (null, a fresh object, or an alias of an earlier one), as the API's contract allows (see --contract).
    #[arg(long)]
    pub entry: Option<String>,
    /// Unit mode: at most this many struct objects per test.
    #[arg(long, default_value_t = Settings::default().max_objects)]
    pub max_objects: u32,
    /// Unit mode: struct objects at most this many pointers away from an argument.
    #[arg(long, default_value_t = Settings::default().max_depth)]
    pub max_depth: u32,
    /// Unit mode: arrays behind pointers have 1 (0 with a length parameter) to this many elements.
    #[arg(long, default_value_t = Settings::default().max_array)]
    pub max_array: u32,
    /// Unit mode: the length of a pointer parameter: `js=len` (an integer parameter), `bin=*binsz` (the integer a parameter points to), `dest=64` (a zero-filled buffer of 64 elements). Repeatable; `none` stops walkdown from pairing pointers with lengths by use and name.
    #[arg(long = "length", value_name = "PTR=LEN", requires = "entry")]
    pub lengths: Vec<String>,
    /// Unit mode: build struct parameters with this initializer of the file (`jsmn_init`, or `parser=jsmn_init`): `void f(S *)` on a zeroed object, or `S *f(void)`. Repeatable; `none` stops walkdown from finding initializers by type and name.
    #[arg(long, value_name = "[PARAM=]FUNC", requires = "entry")]
    pub init: Vec<String>,
    /// Unit mode: a precondition of the entry, a C expression over its parameters (`'len <= 16'`, `'!utf8valid(str)'`). Repeatable. ACSL `requires` clauses before the function in the source count too.
    #[arg(long, value_name = "EXPR", requires = "entry")]
    pub requires: Vec<String>,
    /// Unit mode: this pointer parameter may be NULL although the function does not compare it with NULL (`all`: every pointer parameter). Repeatable.
    #[arg(long, value_name = "PARAM", requires = "entry")]
    pub nullable: Vec<String>,
    /// Unit mode: what the tests do with the API's contract.
    #[arg(long, value_enum, default_value_t, requires = "entry")]
    pub contract: ContractArg,
}

impl UnitArgs {
    /// The driver's options, when `--entry` is given.
    pub fn options(&self) -> Option<UnitOptions> {
        let entry = self.entry.clone()?;
        let contract = ContractOptions {
            lengths: self.lengths.clone(),
            init: self.init.clone(),
            nullable: self.nullable.clone(),
            requires: self.requires.clone(),
            mode: match self.contract {
                ContractArg::Assume => ContractMode::Assume,
                ContractArg::Report => ContractMode::Report,
            },
        };
        Some(UnitOptions {
            entry,
            max_objects: self.max_objects,
            max_depth: self.max_depth,
            max_array: self.max_array,
            contract,
        })
    }
}
