//! `metadata.xml` of a Test-Comp test suite: which program the suite is
//! for (with its SHA-256), which property it aims at, for which
//! architecture, produced by whom and when.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};
use walkdown_ir::DataModel;

use crate::atomic::write_atomically;
use crate::xmldoc::{escape_text, parse_flat, FlatDocument};
use crate::FormatError;

const XML_DECLARATION: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="no"?>"#;
const METADATA_DOCTYPE: &str = r#"<!DOCTYPE test-metadata PUBLIC "+//IDN sosy-lab.org//DTD test-format test-metadata 1.1//EN" "https://sosy-lab.org/test-format/test-metadata-1.1.dtd">"#;

/// The Test-Comp properties a suite can be generated for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Specification {
    /// Cover every branch (`coverage-branches.prp`).
    CoverBranches,
    /// Cover a call of `reach_error` (`coverage-error-call.prp`).
    CoverError,
}

impl Specification {
    /// The FQL text Test-Comp puts into `<specification>`.
    pub fn fql(self) -> &'static str {
        match self {
            Specification::CoverBranches => "COVER( init(main()), FQL(COVER EDGES(@DECISIONEDGE)) )",
            Specification::CoverError => "COVER( init(main()), FQL(COVER EDGES(@CALL(reach_error))) )",
        }
    }

    /// The specification whose FQL text is `text` (whitespace-insensitive).
    pub fn from_fql(text: &str) -> Option<Specification> {
        let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        [Specification::CoverBranches, Specification::CoverError]
            .into_iter()
            .find(|spec| spec.fql().chars().filter(|c| !c.is_whitespace()).collect::<String>() == squeezed)
    }
}

/// The fields of `metadata.xml`, as strings so that a suite produced by
/// another tool reads back whatever it says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Metadata {
    /// `sourcecodelang`: always `C` for walkdown.
    pub source_code_lang: String,
    /// `producer`: the tool (and version) that generated the suite.
    pub producer: String,
    /// `specification`: the FQL text of the property (see [`Specification`]).
    pub specification: String,
    /// `programfile`: the program as it was given to the producer.
    pub program_file: String,
    /// `programhash`: SHA-256 of the program file, lowercase hex.
    pub program_hash: String,
    /// `entryfunction`: where execution starts, `main`.
    pub entry_function: String,
    /// `architecture`: `32bit` or `64bit`.
    pub architecture: String,
    /// `creationtime`: when the suite was generated (ISO 8601, UTC).
    pub creation_time: String,
    /// Fields this reader does not know, kept so nothing is lost.
    pub other: BTreeMap<String, String>,
}

impl Metadata {
    /// Metadata for a suite about `program`, hashing the file and stamping
    /// the current time.
    pub fn for_program(
        program: &Path,
        specification: Specification,
        data_model: DataModel,
        producer: &str,
    ) -> Result<Metadata, FormatError> {
        Ok(Metadata {
            source_code_lang: "C".to_string(),
            producer: producer.to_string(),
            specification: specification.fql().to_string(),
            program_file: program.display().to_string(),
            program_hash: sha256_file(program)?,
            entry_function: "main".to_string(),
            architecture: architecture_name(data_model).to_string(),
            creation_time: utc_timestamp(SystemTime::now()),
            other: BTreeMap::new(),
        })
    }

    /// The data model the `architecture` field names, if it names one.
    pub fn data_model(&self) -> Option<DataModel> {
        match self.architecture.trim() {
            "32bit" => Some(DataModel::ILP32),
            "64bit" => Some(DataModel::LP64),
            _ => None,
        }
    }
}

/// The Test-Comp spelling of a data model.
pub fn architecture_name(data_model: DataModel) -> &'static str {
    match data_model {
        DataModel::LP64 => "64bit",
        DataModel::ILP32 => "32bit",
    }
}

/// SHA-256 of a file's bytes, lowercase hex.
pub fn sha256_file(path: &Path) -> Result<String, FormatError> {
    let bytes = fs::read(path).map_err(|source| FormatError::Read { path: path.to_path_buf(), source })?;
    let digest = Sha256::digest(&bytes);
    Ok(digest.iter().map(|byte| format!("{byte:02x}")).collect())
}

/// Read a `metadata.xml` file.
pub fn read_metadata(path: &Path) -> Result<Metadata, FormatError> {
    let text = fs::read_to_string(path).map_err(|source| FormatError::Read { path: path.to_path_buf(), source })?;
    parse_metadata(&text, path)
}

/// Parse the text of a `metadata.xml`; `origin` names it in errors.
pub fn parse_metadata(text: &str, origin: &Path) -> Result<Metadata, FormatError> {
    let document = parse_flat(text).map_err(|message| FormatError::Xml { path: origin.to_path_buf(), message })?;
    metadata_from_document(&document, origin)
}

pub(crate) fn metadata_from_document(document: &FlatDocument, origin: &Path) -> Result<Metadata, FormatError> {
    if document.root != "test-metadata" {
        return Err(FormatError::UnexpectedRoot {
            path: origin.to_path_buf(),
            expected: "test-metadata",
            found: document.root.clone(),
        });
    }
    let mut metadata = Metadata::default();
    for child in &document.children {
        let value = child.text.trim().to_string();
        let slot = match child.name.as_str() {
            "sourcecodelang" => &mut metadata.source_code_lang,
            "producer" => &mut metadata.producer,
            "specification" => &mut metadata.specification,
            "programfile" => &mut metadata.program_file,
            "programhash" => &mut metadata.program_hash,
            "entryfunction" => &mut metadata.entry_function,
            "architecture" => &mut metadata.architecture,
            "creationtime" => &mut metadata.creation_time,
            other => metadata.other.entry(other.to_string()).or_default(),
        };
        *slot = value;
    }
    Ok(metadata)
}

/// The text of a `metadata.xml`.
pub fn format_metadata(metadata: &Metadata) -> String {
    let known = [
        ("sourcecodelang", &metadata.source_code_lang),
        ("producer", &metadata.producer),
        ("specification", &metadata.specification),
        ("programfile", &metadata.program_file),
        ("programhash", &metadata.program_hash),
        ("entryfunction", &metadata.entry_function),
        ("architecture", &metadata.architecture),
        ("creationtime", &metadata.creation_time),
    ];
    let mut out = String::new();
    out.push_str(XML_DECLARATION);
    out.push('\n');
    out.push_str(METADATA_DOCTYPE);
    out.push('\n');
    out.push_str("<test-metadata>\n");
    for (name, value) in known.into_iter().chain(metadata.other.iter().map(|(k, v)| (k.as_str(), v))) {
        out.push_str(&format!("  <{name}>{}</{name}>\n", escape_text(value)));
    }
    out.push_str("</test-metadata>\n");
    out
}

/// Write a `metadata.xml`, crash-safely (see [`crate::atomic`]).
pub fn write_metadata(path: &Path, metadata: &Metadata) -> Result<(), FormatError> {
    write_atomically(path, format_metadata(metadata).as_bytes())
}

/// `time` as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_timestamp(time: SystemTime) -> String {
    // Times before 1970 cannot come from a clock that generates suites;
    // clamping them to the epoch keeps this infallible.
    let seconds = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let days = (seconds / 86_400) as i64;
    let second_of_day = seconds % 86_400;
    let (year, month, day) = civil_date_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        second_of_day / 3600,
        second_of_day / 60 % 60,
        second_of_day % 60
    )
}

/// Gregorian (year, month, day) of the day `days` after 1970-01-01.
fn civil_date_from_days(days: i64) -> (i64, u32, u32) {
    // Count in 400-year eras starting on March 1st, so the leap day is the
    // last day of each counted year and month lengths follow a fixed cycle.
    let shifted = days + 719_468; // days from 0000-03-01 to 1970-01-01
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * month_from_march + 2) / 5 + 1) as u32;
    let month = if month_from_march < 10 { month_from_march + 3 } else { month_from_march - 9 } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn timestamps() {
        assert_eq!(utc_timestamp(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        assert_eq!(utc_timestamp(UNIX_EPOCH + Duration::from_secs(951_782_400)), "2000-02-29T00:00:00Z");
        assert_eq!(utc_timestamp(UNIX_EPOCH + Duration::from_secs(1_700_000_000)), "2023-11-14T22:13:20Z");
        assert_eq!(utc_timestamp(UNIX_EPOCH + Duration::from_secs(4_107_542_399)), "2100-02-28T23:59:59Z");
    }

    #[test]
    fn specification_texts() {
        assert_eq!(
            Specification::from_fql("COVER(init(main()),FQL(COVER EDGES(@DECISIONEDGE)))"),
            Some(Specification::CoverBranches)
        );
        assert_eq!(Specification::from_fql(Specification::CoverError.fql()), Some(Specification::CoverError));
        assert_eq!(Specification::from_fql("CHECK( LTL(G ! call(reach_error())) )"), None);
    }

    #[test]
    fn metadata_for_a_program_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join("prog.c");
        fs::write(&program, "abc").unwrap();
        let metadata =
            Metadata::for_program(&program, Specification::CoverError, DataModel::ILP32, "walkdown 0.1").unwrap();
        // SHA-256 of "abc", a standard test vector.
        assert_eq!(metadata.program_hash, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(metadata.architecture, "32bit");
        assert_eq!(metadata.data_model(), Some(DataModel::ILP32));
        let path = dir.path().join("metadata.xml");
        write_metadata(&path, &metadata).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.contains("<!DOCTYPE test-metadata PUBLIC"));
        assert!(
            text.contains("<specification>COVER( init(main()), FQL(COVER EDGES(@CALL(reach_error))) )</specification>")
        );
        assert_eq!(read_metadata(&path).unwrap(), metadata);
    }

    #[test]
    fn unknown_fields_are_kept() {
        let text = "<test-metadata><architecture>64bit</architecture><inputtestsuitefile>x</inputtestsuitefile></test-metadata>";
        let metadata = parse_metadata(text, Path::new("metadata.xml")).unwrap();
        assert_eq!(metadata.data_model(), Some(DataModel::LP64));
        assert_eq!(metadata.other.get("inputtestsuitefile").map(String::as_str), Some("x"));
        assert_eq!(parse_metadata(&format_metadata(&metadata), Path::new("m")).unwrap(), metadata);
    }
}
