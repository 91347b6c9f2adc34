//! The shape every Test-Comp XML file has: one root element whose children
//! are flat elements holding text (`<input>` in a test case, the fields of
//! `metadata.xml`). Reading it here keeps quick-xml's event handling out of
//! the format-specific modules.

use std::borrow::Cow;

use quick_xml::escape::{escape, resolve_predefined_entity};
use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::Reader;

/// One child element of the root, with its text content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ChildElement {
    pub name: String,
    pub attributes: Vec<(String, String)>,
    pub text: String,
}

/// The root element and its children, in document order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FlatDocument {
    pub root: String,
    pub root_attributes: Vec<(String, String)>,
    pub children: Vec<ChildElement>,
}

impl FlatDocument {
    /// The value of the root attribute `name`, if present.
    pub fn root_attribute(&self, name: &str) -> Option<&str> {
        find_attribute(&self.root_attributes, name)
    }
}

/// The value of attribute `name` in `attributes`, if present.
pub(crate) fn find_attribute<'a>(attributes: &'a [(String, String)], name: &str) -> Option<&'a str> {
    attributes.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
}

/// Parse `text` as a flat document. Elements nested below the root's
/// children are rejected: no Test-Comp format has them, so their presence
/// means the file is something else.
pub(crate) fn parse_flat(text: &str) -> Result<FlatDocument, String> {
    let mut reader = Reader::from_str(text);
    let mut root: Option<(String, Vec<(String, String)>)> = None;
    let mut children = Vec::new();
    let mut open_child: Option<ChildElement> = None;
    loop {
        let event = reader.read_event().map_err(|e| format!("at byte {}: {e}", reader.error_position()))?;
        match event {
            Event::Start(start) if root.is_none() => {
                root = Some((element_name(&start), element_attributes(&start)?));
            }
            Event::Empty(start) if root.is_none() => {
                root = Some((element_name(&start), element_attributes(&start)?));
                break;
            }
            Event::Start(start) => {
                if open_child.is_some() {
                    return Err(format!("unexpected nested element <{}>", element_name(&start)));
                }
                open_child = Some(ChildElement {
                    name: element_name(&start),
                    attributes: element_attributes(&start)?,
                    text: String::new(),
                });
            }
            Event::Empty(start) => {
                if open_child.is_some() {
                    return Err(format!("unexpected nested element <{}>", element_name(&start)));
                }
                children.push(ChildElement {
                    name: element_name(&start),
                    attributes: element_attributes(&start)?,
                    text: String::new(),
                });
            }
            Event::End(_) => match open_child.take() {
                Some(child) => children.push(child),
                // The root's end tag: whatever follows is only trailing
                // comments or whitespace, which the reader checks no further.
                None => break,
            },
            Event::Text(content) => {
                if let Some(child) = open_child.as_mut() {
                    child.text.push_str(&content.xml10_content());
                }
            }
            Event::CData(content) => {
                if let Some(child) = open_child.as_mut() {
                    child.text.push_str(&content.xml10_content());
                }
            }
            Event::GeneralRef(reference) => {
                if let Some(child) = open_child.as_mut() {
                    child.text.push_str(&resolve_reference(&reference)?);
                }
            }
            Event::Eof => {
                return Err(if root.is_none() {
                    "no root element".to_string()
                } else {
                    "document ends inside an element".to_string()
                })
            }
            Event::Decl(_) | Event::PI(_) | Event::DocType(_) | Event::Comment(_) => {}
        }
    }
    let (root, root_attributes) = root.ok_or_else(|| "no root element".to_string())?;
    Ok(FlatDocument { root, root_attributes, children })
}

fn element_name(start: &BytesStart<'_>) -> String {
    start.name().as_ref().to_string()
}

fn element_attributes(start: &BytesStart<'_>) -> Result<Vec<(String, String)>, String> {
    let mut attributes = Vec::new();
    for attribute in start.attributes() {
        let attribute = attribute.map_err(|e| format!("bad attribute: {e}"))?;
        let value = attribute
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map_err(|e| format!("bad attribute value: {e}"))?;
        attributes.push((attribute.key.as_ref().to_string(), value.into_owned()));
    }
    Ok(attributes)
}

fn resolve_reference(reference: &BytesRef<'_>) -> Result<String, String> {
    if let Some(c) = reference.resolve_char_ref().map_err(|e| format!("bad character reference: {e}"))? {
        return Ok(c.to_string());
    }
    let name = reference.xml10_content();
    resolve_predefined_entity(&name).map(str::to_string).ok_or_else(|| format!("unknown entity &{name};"))
}

/// Escape text for element content or a double-quoted attribute value.
pub(crate) fn escape_text(text: &str) -> Cow<'_, str> {
    escape(text)
}
