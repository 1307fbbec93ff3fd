//! Unit parameters: their declared ranges, parsing from TOML and `--set key=value`, and
//! validation with one-line errors that name the input and what is allowed.

use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// What values a parameter accepts.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum ParamKind {
    Int { min: i64, max: i64 },
    Choice { choices: &'static [&'static str] },
    Bool,
}

/// One declared parameter of a unit.
#[derive(Clone, Debug, Serialize)]
pub struct ParamSpec {
    pub name: &'static str,
    #[serde(flatten)]
    pub kind: ParamKind,
    pub default: Value,
    pub doc: &'static str,
}

impl ParamSpec {
    pub const fn int(
        name: &'static str,
        min: i64,
        max: i64,
        default: i64,
        doc: &'static str,
    ) -> Self {
        Self {
            name,
            kind: ParamKind::Int { min, max },
            default: Value::Int(default),
            doc,
        }
    }
    pub const fn choice(
        name: &'static str,
        choices: &'static [&'static str],
        default: &'static str,
        doc: &'static str,
    ) -> Self {
        Self {
            name,
            kind: ParamKind::Choice { choices },
            default: Value::Str(default),
            doc,
        }
    }
    pub const fn boolean(name: &'static str, default: bool, doc: &'static str) -> Self {
        Self {
            name,
            kind: ParamKind::Bool,
            default: Value::Bool(default),
            doc,
        }
    }

    /// Human description of the allowed values, used in error messages.
    pub fn allowed(&self) -> String {
        match &self.kind {
            ParamKind::Int { min, max } => format!("an integer from {min} to {max}"),
            ParamKind::Choice { choices } => format!("one of {}", choices.join(", ")),
            ParamKind::Bool => "true or false".to_string(),
        }
    }

    fn check(&self, v: &Value) -> bool {
        match (&self.kind, v) {
            (ParamKind::Int { min, max }, Value::Int(i)) => i >= min && i <= max,
            (ParamKind::Choice { choices }, Value::Str(s)) => choices.contains(s),
            (ParamKind::Bool, Value::Bool(_)) => true,
            _ => false,
        }
    }

    /// Parse the text of a `--set` value according to this parameter's kind.
    fn parse_text(&self, text: &str) -> Option<Value> {
        match &self.kind {
            ParamKind::Int { .. } => parse_int(text).map(Value::Int),
            ParamKind::Choice { choices } => {
                choices.iter().find(|c| **c == text).map(|c| Value::Str(c))
            }
            // The same rule as a TOML file: a boolean is `true` or `false`, nothing else.
            ParamKind::Bool => match text {
                "true" => Some(Value::Bool(true)),
                "false" => Some(Value::Bool(false)),
                _ => None,
            },
        }
    }
}

/// Text from the input shown in a one-line message: line breaks escaped.
pub fn one_line(text: &str) -> String {
    text.replace('\r', "\\r").replace('\n', "\\n")
}

fn parse_int(text: &str) -> Option<i64> {
    let t = text.trim();
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()
    } else {
        t.parse().ok()
    }
}

/// A parameter value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Value {
    Int(i64),
    Str(&'static str),
    Bool(bool),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(i) => write!(f, "{i}"),
            Value::Str(s) => write!(f, "{s}"),
            Value::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// A parameter problem; its `Display` is the one-line message (without the `error: ` prefix).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamError(pub String);

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParamError {}

/// A complete, validated parameter set for one unit: every declared parameter has a value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Params {
    values: BTreeMap<&'static str, Value>,
}

impl Params {
    /// The defaults of `specs`.
    pub fn defaults(specs: &[ParamSpec]) -> Params {
        Params {
            values: specs.iter().map(|s| (s.name, s.default.clone())).collect(),
        }
    }

    /// Build a parameter set from the defaults, then a TOML `[params]` table (if any), then
    /// `--set key=value` overrides, validating each value against its declaration.
    /// `source` names where the TOML came from, for error messages.
    pub fn resolve(
        unit: &str,
        specs: &[ParamSpec],
        toml_params: Option<(&str, &toml::Table)>,
        sets: &[String],
    ) -> Result<Params, ParamError> {
        let mut p = Params::defaults(specs);
        let known = || specs.iter().map(|s| s.name).collect::<Vec<_>>().join(", ");
        if let Some((source, table)) = toml_params {
            for (key, raw) in table {
                let spec = specs.iter().find(|s| s.name == key).ok_or_else(|| {
                    ParamError(format!(
                        "{source}: unknown parameter `{}` for unit {unit}; known parameters: {}",
                        one_line(key),
                        known()
                    ))
                })?;
                let v = match (&spec.kind, raw) {
                    (ParamKind::Int { .. }, toml::Value::Integer(i)) => Some(Value::Int(*i)),
                    (ParamKind::Choice { choices }, toml::Value::String(s)) => choices
                        .iter()
                        .find(|c| **c == s.as_str())
                        .map(|c| Value::Str(c)),
                    (ParamKind::Bool, toml::Value::Boolean(b)) => Some(Value::Bool(*b)),
                    _ => None,
                };
                let v = v.filter(|v| spec.check(v)).ok_or_else(|| {
                    ParamError(format!(
                        "{source}: {key} = {} is not allowed; {key} must be {}",
                        one_line(&raw.to_string()),
                        spec.allowed()
                    ))
                })?;
                p.values.insert(spec.name, v);
            }
        }
        for set in sets {
            let (key, text) = set.split_once('=').ok_or_else(|| {
                ParamError(format!(
                    "--set {}: expected key=value (known parameters of {unit}: {})",
                    one_line(set),
                    known()
                ))
            })?;
            let key = key.trim();
            let spec = specs.iter().find(|s| s.name == key).ok_or_else(|| {
                ParamError(format!(
                    "--set {}: unknown parameter `{}` for unit {unit}; known parameters: {}",
                    one_line(set),
                    one_line(key),
                    known()
                ))
            })?;
            let v = spec
                .parse_text(text.trim())
                .filter(|v| spec.check(v))
                .ok_or_else(|| {
                    ParamError(format!(
                        "--set {}: {key} must be {}",
                        one_line(set),
                        spec.allowed()
                    ))
                })?;
            p.values.insert(spec.name, v);
        }
        Ok(p)
    }

    pub fn int(&self, name: &str) -> i64 {
        match self.values.get(name) {
            Some(Value::Int(i)) => *i,
            other => panic!("parameter {name} is not an integer: {other:?}"),
        }
    }
    pub fn usize(&self, name: &str) -> usize {
        self.int(name) as usize
    }
    pub fn str(&self, name: &str) -> &'static str {
        match self.values.get(name) {
            Some(Value::Str(s)) => s,
            other => panic!("parameter {name} is not a choice: {other:?}"),
        }
    }
    pub fn bool(&self, name: &str) -> bool {
        match self.values.get(name) {
            Some(Value::Bool(b)) => *b,
            other => panic!("parameter {name} is not a boolean: {other:?}"),
        }
    }
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &Value)> {
        self.values.iter().map(|(k, v)| (*k, v))
    }
    /// `key=value` pairs in the form `--set` accepts, to build replay commands.
    pub fn as_sets(&self) -> Vec<String> {
        self.iter().map(|(k, v)| format!("{k}={v}")).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const SPECS: &[ParamSpec] = &[
        ParamSpec::int("warps", 2, 64, 8, "warp slots"),
        ParamSpec::choice("policy", &["lrr", "gto"], "gto", "policy"),
        ParamSpec::boolean("trace", false, "flag"),
    ];

    #[test]
    fn defaults_then_toml_then_sets() {
        let t: toml::Table = toml::from_str("warps = 16\npolicy = \"lrr\"").unwrap();
        let p = Params::resolve(
            "u",
            SPECS,
            Some(("c.toml", &t)),
            &["warps=0x20".into(), "trace=true".into()],
        )
        .unwrap();
        assert_eq!(p.int("warps"), 32);
        assert_eq!(p.str("policy"), "lrr");
        assert!(p.bool("trace"));
    }

    #[test]
    fn errors_name_the_input_and_the_allowed_values() {
        let e = Params::resolve("u", SPECS, None, &["warps=65".into()]).unwrap_err();
        assert_eq!(e.0, "--set warps=65: warps must be an integer from 2 to 64");
        let e = Params::resolve("u", SPECS, None, &["policy=rr".into()]).unwrap_err();
        assert_eq!(e.0, "--set policy=rr: policy must be one of lrr, gto");
        let e = Params::resolve("u", SPECS, None, &["nope=1".into()]).unwrap_err();
        assert!(e.0.contains("unknown parameter `nope`"), "{e}");
        let e = Params::resolve("u", SPECS, None, &["warps".into()]).unwrap_err();
        assert!(e.0.contains("expected key=value"), "{e}");
        let t: toml::Table = toml::from_str("warps = \"many\"").unwrap();
        let e = Params::resolve("u", SPECS, Some(("c.toml", &t)), &[]).unwrap_err();
        assert!(
            e.0.starts_with("c.toml: warps = \"many\" is not allowed"),
            "{e}"
        );
    }
}
