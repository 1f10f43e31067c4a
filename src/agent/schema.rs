//! `--schema`: the shape of JSON a reply must have. The schema is sent as
//! the request's `response_format`, and the reply checked against it here
//! by a small reading of JSON Schema: `type`, `properties`, `required`,
//! `items` and `enum`, nested; the rest of a schema is the server's to
//! honour, not checked.

use crate::store::json;

/// The largest schema read from a file.
const MAX_SCHEMA_BYTES: u64 = 256 << 10;

/// `--schema JSON|FILE`: the schema's text, checked to be a JSON object.
pub(crate) fn load(given: &std::ffi::OsStr) -> Result<String, String> {
    let inline = given.to_str().filter(|t| t.trim_start().starts_with('{'));
    let text = match inline {
        Some(text) => text.to_string(),
        None => {
            let path = std::path::Path::new(given);
            let shown = path.display();
            let bytes = crate::fsio::read_limited(path, MAX_SCHEMA_BYTES)
                .map_err(|e| format!("cannot read {shown}: {}", crate::error::describe_io(&e)))?;
            String::from_utf8(bytes).map_err(|_| format!("{shown} is not UTF-8 text"))?
        }
    };
    json::validate(text.as_bytes()).map_err(|why| format!("not JSON: {why}"))?;
    match parse(text.as_bytes()) {
        Some(Value::Object(_)) => Ok(text.trim().to_string()),
        _ => Err("a schema is a JSON object, as {\"type\":\"object\",\"properties\":{...}}".to_string()),
    }
}

/// The members a request carries for `schema`: OpenAI's `response_format`.
pub(crate) fn request_members(schema: &str) -> String {
    format!(
        ",\"response_format\":{{\"type\":\"json_schema\",\"json_schema\":{{\"name\":\"reply\",\
            \"schema\":{schema}}}}}"
    )
}

/// Whether `reply` is JSON of `schema`'s shape; why not, at which place
/// (`$.items[2].name`). A reply that is one fenced block is read inside it.
pub(crate) fn check(reply: &str, schema: &str) -> Result<(), String> {
    let schema = parse(schema.as_bytes()).ok_or("the schema does not read")?;
    let text = unfenced(reply.trim());
    if json::validate(text.as_bytes()).is_err() {
        return Err("the reply is not JSON".to_string());
    }
    let value = parse(text.as_bytes()).ok_or("the reply is not JSON")?;
    conforms(&value, &schema, "$")
}

/// The body of a reply that is one fenced block (```json ... ```).
fn unfenced(reply: &str) -> &str {
    let Some(rest) = reply.strip_prefix("```") else { return reply };
    let Some((_, body)) = rest.split_once('\n') else { return reply };
    body.trim_end().strip_suffix("```").map_or(reply, str::trim)
}

/// A JSON value, read whole (a reply, a schema: small).
#[derive(Debug, PartialEq)]
enum Value {
    Null,
    Bool(bool),
    Number(f64),
    Text(String),
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
}

impl Value {
    fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.fract() == 0.0 => "integer",
            Value::Number(_) => "number",
            Value::Text(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }

    fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

fn conforms(value: &Value, schema: &Value, at: &str) -> Result<(), String> {
    let kind = value.kind();
    let is = |wanted: &str| wanted == kind || (wanted == "number" && kind == "integer");
    let wanted: Vec<&str> = match schema.get("type") {
        Some(Value::Text(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => {
            ts.iter().filter_map(|t| if let Value::Text(t) = t { Some(t.as_str()) } else { None }).collect()
        }
        _ => Vec::new(),
    };
    if !wanted.is_empty() && !wanted.iter().any(|w| is(w)) {
        return Err(format!("{at} is {} {kind}, not {}", article(kind), wanted.join(" or ")));
    }
    if let Some(Value::Array(allowed)) = schema.get("enum")
        && !allowed.contains(value)
    {
        return Err(format!("{at} is none of the values its enum allows"));
    }
    if let Some(Value::Array(required)) = schema.get("required") {
        for key in required.iter().filter_map(|k| if let Value::Text(k) = k { Some(k) } else { None }) {
            if value.get(key).is_none() && matches!(value, Value::Object(_)) {
                return Err(format!("{at} lacks the required key \"{key}\""));
            }
        }
    }
    if let (Some(Value::Object(properties)), Value::Object(members)) = (schema.get("properties"), value) {
        for (key, inner) in members {
            if let Some((_, shape)) = properties.iter().find(|(k, _)| k == key) {
                conforms(inner, shape, &format!("{at}.{key}"))?;
            }
        }
    }
    if let (Some(shape), Value::Array(items)) = (schema.get("items"), value) {
        for (i, item) in items.iter().enumerate() {
            conforms(item, shape, &format!("{at}[{i}]"))?;
        }
    }
    Ok(())
}

fn article(kind: &str) -> &'static str {
    if kind.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" }
}

/// Read valid JSON (`json::validate` said so: depth is bounded) whole.
fn parse(bytes: &[u8]) -> Option<Value> {
    let mut at = 0;
    let value = value(bytes, &mut at)?;
    blank(bytes, &mut at);
    (at == bytes.len()).then_some(value)
}

fn blank(bytes: &[u8], at: &mut usize) {
    while bytes.get(*at).is_some_and(u8::is_ascii_whitespace) {
        *at += 1;
    }
}

fn value(bytes: &[u8], at: &mut usize) -> Option<Value> {
    blank(bytes, at);
    let word = |w: &[u8], v: Value, at: &mut usize| {
        bytes[*at..].starts_with(w).then(|| {
            *at += w.len();
            v
        })
    };
    match *bytes.get(*at)? {
        b'n' => word(b"null", Value::Null, at),
        b't' => word(b"true", Value::Bool(true), at),
        b'f' => word(b"false", Value::Bool(false), at),
        b'"' => string(bytes, at).map(Value::Text),
        b'[' => {
            *at += 1;
            let mut items = Vec::new();
            loop {
                blank(bytes, at);
                match bytes.get(*at)? {
                    b']' => break,
                    b',' => *at += 1,
                    _ => items.push(value(bytes, at)?),
                }
            }
            *at += 1;
            Some(Value::Array(items))
        }
        b'{' => {
            *at += 1;
            let mut members = Vec::new();
            loop {
                blank(bytes, at);
                match bytes.get(*at)? {
                    b'}' => break,
                    b',' => *at += 1,
                    _ => {
                        let key = string(bytes, at)?;
                        blank(bytes, at);
                        *at += 1; // ':'
                        members.push((key, value(bytes, at)?));
                    }
                }
            }
            *at += 1;
            Some(Value::Object(members))
        }
        _ => {
            let start = *at;
            while bytes.get(*at).is_some_and(|b| b"+-.eE0123456789".contains(b)) {
                *at += 1;
            }
            std::str::from_utf8(&bytes[start..*at]).ok()?.parse().ok().map(Value::Number)
        }
    }
}

/// A string at `at` (its opening quote), unescaped.
fn string(bytes: &[u8], at: &mut usize) -> Option<String> {
    let start = *at;
    *at += 1;
    while *bytes.get(*at)? != b'"' {
        *at += if bytes[*at] == b'\\' { 2 } else { 1 };
    }
    *at += 1;
    nanoserde::DeJson::deserialize_json(std::str::from_utf8(&bytes[start..*at]).ok()?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCHEMA: &str = concat!(
        r#"{"type":"object","required":["name","tags"],"properties":{"name":{"type":"string"},"#,
        r#""age":{"type":"integer"},"#,
        r#""tags":{"type":"array","items":{"type":"string","enum":["a","b\u0021"]}}}}"#
    );

    #[test]
    fn replies_are_checked_against_the_shape() {
        assert_eq!(check(r#"{"name":"x","age":3,"tags":["a","b!"]}"#, SCHEMA), Ok(()));
        assert_eq!(check("```json\n{\"name\":\"x\",\"tags\":[]}\n```", SCHEMA), Ok(()));
        let why = |reply: &str| check(reply, SCHEMA).unwrap_err();
        assert_eq!(why("Sure! Here it is"), "the reply is not JSON");
        assert_eq!(why(r#"{"name":"x"}"#), "$ lacks the required key \"tags\"");
        assert_eq!(why(r#"{"name":5,"tags":[]}"#), "$.name is an integer, not string");
        assert_eq!(why(r#"{"name":"x","age":1.5,"tags":[]}"#), "$.age is a number, not integer");
        assert_eq!(
            why(r#"{"name":"x","tags":["a","c"]}"#),
            "$.tags[1] is none of the values its enum allows"
        );
        assert_eq!(why("[1]"), "$ is an array, not object");
    }

    #[test]
    fn a_schema_is_a_json_object() {
        assert!(load(std::ffi::OsStr::new(SCHEMA)).is_ok());
        assert!(load(std::ffi::OsStr::new("{\"type\":")).unwrap_err().starts_with("not JSON"));
        assert!(
            load(std::ffi::OsStr::new("/nonexistent/schema.json")).unwrap_err().starts_with("cannot read")
        );
    }
}
