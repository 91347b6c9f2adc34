//! `--annotations`, `--verification` and EVA's options as the command
//! line spells them; reading annotations is `walkdown_driver::annotations`.

use walkdown_annot::Config;
use walkdown_driver::annotations::AnnotationSource;

/// `--annotations`: a source of verification results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SourceArg {
    /// `__VERIFIER_assumed` / `__VERIFIER_assert_verified` in the program.
    Source,
    /// walkdown's static proofs: an error site it proves unreachable is
    /// verified without condition; one its interval analysis proves only
    /// when assuming that no add/sub/mul overflows is verified under the
    /// assumption `no_overflow` (tracked at the instructions it needed).
    #[value(name = "self")]
    SelfProof,
    /// Frama-C's EVA (Debian frama-c-base): a check it raises no alarm for
    /// is verified, under the signed overflows it assumed away elsewhere.
    Eva,
}

impl SourceArg {
    /// The driver's source.
    pub fn source(self) -> AnnotationSource {
        match self {
            SourceArg::Source => AnnotationSource::Source,
            SourceArg::SelfProof => AnnotationSource::SelfProof,
            SourceArg::Eva => AnnotationSource::Eva,
        }
    }
}

/// `--eva-precision`, `--eva-timeout`: how Frama-C EVA runs for
/// `--annotations eva`.
#[derive(Clone, Debug, clap::Args)]
pub struct EvaArgs {
    /// EVA's precision (`-eva-precision`, 0 to 11) for `--annotations eva`: more path partitioning, more time.
    #[arg(long, default_value_t = 8)]
    pub eva_precision: u8,
    /// Time limit of the EVA run for `--annotations eva`, in seconds.
    #[arg(long, default_value_t = 60.0)]
    pub eva_timeout: f64,
}

impl EvaArgs {
    /// The settings of the run.
    pub fn settings(&self) -> walkdown_native::eva::EvaSettings {
        walkdown_native::eva::EvaSettings {
            precision: self.eva_precision,
            timeout: std::time::Duration::from_secs_f64(self.eva_timeout.max(0.1)),
            ..Default::default()
        }
    }
}

/// `--verification`: which of the paper's configurations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ConfigArg {
    /// No annotations used (plain dynamic symbolic execution).
    Uv,
    /// Runs stop at an annotated assertion whose premise holds.
    Pv,
    /// Prune executions that are verified from a point on.
    May,
    /// Try first the inputs whose executions must be unverified.
    Must,
    /// Both.
    #[value(name = "may+must")]
    MayMust,
}

impl ConfigArg {
    /// The library's configuration.
    pub fn config(self) -> Config {
        match self {
            ConfigArg::Uv => Config::Uv,
            ConfigArg::Pv => Config::Pv,
            ConfigArg::May => Config::May,
            ConfigArg::Must => Config::Must,
            ConfigArg::MayMust => Config::MayMust,
        }
    }
}
