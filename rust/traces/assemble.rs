//! One trace assembled into the values of a test case, on the fast path: the same reading as
//! `evalmark.traces._assemble` (see its module docstring) for the traces most agents write:
//! GenAI spans of the current conventions (`gen_ai.operation.name` of an agent, chat or tool
//! span; messages as `gen_ai.input.messages` / `gen_ai.output.messages` in the `{role,
//! parts}` form), any other spans, one tree. Anything else (OpenInference, message events,
//! retrieval, a broken parent chain, a failed tool call, a value of an unexpected type...)
//! gives `None`: the trace then goes to the Python assembler, which reads every form.

use rustc_hash::FxHashMap as HashMap;

use super::otlp::{Key, SpanData};
use crate::json_read::{self as json, Parser, V};

/// The attribute keys the reader understands: the table of `evalmark.traces._keys`, the one
/// place they are spelled, handed over when `evalmark.traces._fast` is imported. An attribute
/// it does not name is kept in `metadata["spans"]`.
pub struct Known {
    /// Each known key, with whether this path leaves it unread (it is not in [`HANDLED`]):
    /// one lookup answers both questions.
    keys: HashMap<String, bool>,
    prefixes: Vec<String>,
}

impl Known {
    /// The table of known keys and of known key prefixes (indexed families).
    pub fn new(keys: Vec<String>, prefixes: Vec<String>) -> Self {
        Known {
            keys: keys
                .into_iter()
                .map(|k| {
                    let unread = !HANDLED.contains(&k.as_str());
                    (k, unread)
                })
                .collect(),
            prefixes,
        }
    }

    fn prefixed(&self, key: &str) -> bool {
        self.prefixes.iter().any(|p| key.starts_with(p.as_str()))
    }

    /// Whether the reader understands attribute `key`.
    pub fn contains(&self, key: &str) -> bool {
        self.keys.contains_key(key) || self.prefixed(key)
    }

    /// Whether the reader understands attribute `key` and this path does not read it.
    fn unread(&self, key: &str) -> bool {
        match self.keys.get(key) {
            Some(&unread) => unread,
            None => self.prefixed(key) && !HANDLED.contains(&key),
        }
    }
}

/// The keys this path reads (or may ignore, as the Python reader does): what it implements,
/// not the convention. A GenAI span with another key the table of [`Known`] names goes to the
/// Python assembler.
const HANDLED: &[&str] = &[
    "gen_ai.operation.name",
    "gen_ai.agent.name",
    "gen_ai.agent.id",
    "gen_ai.tool.name",
    "gen_ai.tool.call.id",
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.call.result",
    "gen_ai.input.messages",
    "gen_ai.output.messages",
    "gen_ai.system_instructions",
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.output_tokens",
    "input.mime_type",
    "output.mime_type",
];
const STATUS_ERROR: i64 = 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Other,
    Agent,
    Chat,
    Tool,
}

impl Role {
    /// The name `metadata["spans"]` gives it.
    pub fn name(self) -> &'static str {
        match self {
            Role::Other => "other",
            Role::Agent => "agent",
            Role::Chat => "chat",
            Role::Tool => "tool",
        }
    }
}

fn role(s: &SpanData, known: &Known) -> Option<Role> {
    // One pass over the attributes (no key twice): the operation, and what sends the span to
    // the Python assembler.
    let mut operation = None;
    let mut foreign = false; // another GenAI key, or an OpenInference span kind
    for (k, v) in &s.attrs {
        match &**k {
            "gen_ai.evaluation.name" => return None,
            "gen_ai.operation.name" => operation = Some(v),
            "openinference.span.kind" => foreign = true,
            other => foreign |= other.starts_with("gen_ai."),
        }
    }
    let r = match operation {
        Some(op) => match op.as_str()? {
            "invoke_agent" | "create_agent" => Role::Agent,
            "chat" | "text_completion" | "generate_content" => Role::Chat,
            "execute_tool" => Role::Tool,
            _ => return None,
        },
        None if foreign => return None,
        None => return Some(Role::Other),
    };
    let unread = s.attrs.iter().any(|(k, _)| known.unread(k));
    let failed = r == Role::Tool && s.status_code == STATUS_ERROR;
    (!unread && !failed).then_some(r)
}

/// A JSON text decoded (`_values.parsed`); None when this reader cannot be sure.
fn parsed(v: &V) -> Option<V> {
    match v {
        V::Str(s) if s.starts_with(['{', '[', '"']) => json::parse_str(s),
        other => Some(other.clone()),
    }
}

/// Tool arguments as a mapping (`_values.arguments_of`).
fn arguments_of(v: &V) -> Option<V> {
    Some(match parsed(v)? {
        V::Null => V::Obj(Vec::new()),
        V::Obj(f) => V::Obj(f),
        other => V::Obj(vec![("input".to_string(), other)]),
    })
}

/// `str(value or "")` for a value that is text or missing.
fn text_or_empty(v: Option<&V>) -> Option<String> {
    match v {
        None | Some(V::Null) => Some(String::new()),
        Some(V::Str(s)) => Some(s.clone()),
        _ => None,
    }
}

/// `value or fallback` for a text value (a non-text value: None).
fn text_or<'a>(v: Option<&'a V>, fallback: &'a str) -> Option<&'a str> {
    match v {
        None | Some(V::Null) => Some(fallback),
        Some(V::Str(s)) => Some(if s.is_empty() { fallback } else { s }),
        _ => None,
    }
}

pub struct Msg {
    role: String,
    text: String,
    calls: Vec<(String, String, V)>,
    results: Vec<(String, V)>,
}

/// One part of a message, as `message` reads it.
enum Part {
    Text(String),
    Call(String, String, V),
    Result(String, V),
    Skip,
}

/// Depth of a message's parts and of their fields in the messages document (an array of
/// messages): the depths `json::parse_str` of the whole document reads them at.
const PART_DEPTH: usize = 3;

/// One part, read from the document (`{"type": ..., ...}`; anything but an object: skipped).
fn part(p: &mut Parser<'_>) -> Option<Part> {
    if !p.next_is(b'{') {
        p.any_at(PART_DEPTH)?;
        return Some(Part::Skip);
    }
    let (mut kind, mut id, mut name) = (None, None, None);
    let (mut arguments, mut response, mut content) = (None, None, None);
    p.object(|p, key| {
        let slot = match key {
            "type" => &mut kind,
            "id" => &mut id,
            "name" => &mut name,
            "arguments" => &mut arguments,
            "response" => &mut response,
            "content" => &mut content,
            _ => return p.any_at(PART_DEPTH + 1).map(drop),
        };
        *slot = Some(p.any_at(PART_DEPTH + 1)?);
        Some(())
    })?;
    Some(match kind.as_ref().and_then(V::as_str) {
        Some("tool_call") => Part::Call(
            text_or_empty(id.as_ref())?,
            text_or_empty(name.as_ref())?,
            arguments_of(arguments.as_ref().unwrap_or(&V::Null))?,
        ),
        Some("tool_call_response") => Part::Result(
            text_or_empty(id.as_ref())?,
            parsed(response.as_ref().unwrap_or(&V::Null))?,
        ),
        _ => match content {
            Some(V::Str(t)) => Part::Text(t),
            _ => Part::Skip,
        },
    })
}

/// One message of the document, read as it streams by (no tree of it is built): `{role,
/// parts}` (and `finish_reason`), anything else None.
fn message(p: &mut Parser<'_>) -> Option<Msg> {
    let mut role: Option<String> = None;
    let mut parts: Option<Vec<Part>> = None;
    let (mut count, mut finish) = (0, false);
    p.object(|p, key| {
        count += 1;
        match key {
            "role" => match p.any_at(PART_DEPTH - 1)? {
                V::Str(r) => role = Some(r),
                _ => return None,
            },
            "parts" => {
                if !p.next_is(b'[') {
                    return None;
                }
                let mut found = Vec::new();
                p.array(|p| {
                    found.push(part(p)?);
                    Some(())
                })?;
                parts = Some(found);
            }
            other => {
                finish |= other == "finish_reason";
                drop(p.any_at(PART_DEPTH - 1)?);
            }
        }
        Some(())
    })?;
    let plain = count == 2 || (count == 3 && finish);
    let (Some(role), Some(parts)) = (role, parts) else {
        return None;
    };
    if !plain {
        return None;
    }
    let mut texts: Vec<String> = Vec::new();
    let mut calls = Vec::new();
    let mut results = Vec::new();
    for part in parts {
        match part {
            Part::Text(t) => texts.push(t),
            Part::Call(id, name, arguments) => calls.push((id, name, arguments)),
            Part::Result(id, v) => results.push((id, v)),
            Part::Skip => {}
        }
    }
    let text = join(texts.iter().map(String::as_str));
    let role = if role.is_empty() {
        "user".to_string()
    } else {
        role
    };
    Some(Msg {
        role,
        text,
        calls,
        results,
    })
}

fn join<'a>(texts: impl Iterator<Item = &'a str>) -> String {
    texts
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

fn messages(s: &SpanData, key: &str) -> Option<Vec<Msg>> {
    match s.attr(key) {
        None => Some(Vec::new()),
        Some(V::Str(text)) if text.starts_with('[') => message_list(text),
        Some(_) => None,
    }
}

/// A JSON array of messages, read as it streams by; None for any other document.
fn message_list(text: &str) -> Option<Vec<Msg>> {
    let mut p = Parser::of_str(text);
    let mut out = Vec::new();
    p.array(|p| {
        out.push(message(p)?);
        Some(())
    })?;
    p.at_end().then_some(out)
}

fn user_text(msgs: &[Msg]) -> String {
    let user = msgs
        .iter()
        .rfind(|m| m.role == "user" && !m.text.is_empty());
    let found = user.or_else(|| {
        msgs.iter()
            .rfind(|m| !m.text.is_empty() && m.role != "system")
    });
    found.map(|m| m.text.clone()).unwrap_or_default()
}

fn answer_text(msgs: &[Msg]) -> String {
    let found = msgs.iter().rfind(|m| !m.text.is_empty());
    found.map(|m| m.text.clone()).unwrap_or_default()
}

/// A tool call of the case: name, arguments, result (None unless there is one), duration,
/// id, whether it has a result.
pub struct Call {
    pub name: String,
    pub arguments: V,
    pub result: V,
    pub duration_ms: Option<f64>,
    pub id: Option<String>,
    pub has_result: bool,
}

/// A reasoning step: a thought or action text, or a tool call (its action step, and its
/// observation step when it has a result).
pub enum Step {
    Thought(String),
    Action(String),
    Call(usize),
}

pub struct Problem {
    pub reason: &'static str,
    pub message: String,
    pub span_id: Option<String>,
}

/// An agent of `metadata["agents"]`: name, span id, tools, nested agents (indices).
pub struct Agent<'a> {
    pub name: &'a str,
    pub span_id: &'a str,
    pub tools: Vec<&'a str>,
    pub agents: Vec<usize>,
}

/// An entry of `metadata["spans"]`: the span, its role, and the attributes kept.
pub struct Kept<'a> {
    pub span: &'a SpanData,
    pub role: Role,
    pub attributes: Vec<&'a (Key, V)>,
}

pub struct Case<'a> {
    pub question: String,
    pub answer: String,
    pub calls: Vec<Call>,
    pub steps: Vec<Step>,
    pub latency_ms: f64,
    pub usage: Option<(i128, i128, i128)>,
    pub root: &'a SpanData,
    pub top: &'a SpanData,
    pub agents: Vec<Agent<'a>>, // the first is the root of the tree
    pub kept: Vec<Kept<'a>>,
}

pub struct Assembled<'a> {
    pub trace_id: &'a str,
    pub name: &'a str,
    pub problems: Vec<Problem>,
    pub case: Option<Case<'a>>,
}

/// The spans depth first (children by start time), or None for a broken chain.
fn walk<'a>(spans: &[&'a SpanData]) -> Option<Vec<&'a SpanData>> {
    let mut by_id: HashMap<&str, usize> =
        HashMap::with_capacity_and_hasher(spans.len(), Default::default());
    for (i, s) in spans.iter().enumerate() {
        if by_id.insert(s.span_id.as_str(), i).is_some() {
            return None; // a repeated span id
        }
    }
    let mut sorted: Vec<usize> = (0..spans.len()).collect();
    sorted.sort_by(|&a, &b| {
        let (x, y) = (spans[a], spans[b]);
        (x.start, &x.span_id).cmp(&(y.start, &y.span_id))
    });
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); spans.len()];
    let mut tops = Vec::new();
    for i in sorted {
        let s = spans[i];
        match by_id.get(s.parent_id.as_str()) {
            Some(&p) if !s.parent_id.is_empty() && p != i => children[p].push(i),
            _ => tops.push(i),
        }
    }
    if tops.len() != 1 {
        return None;
    }
    let mut order = Vec::with_capacity(spans.len());
    let mut stack = tops;
    while let Some(i) = stack.pop() {
        order.push(spans[i]);
        stack.extend(children[i].iter().rev());
    }
    (order.len() == spans.len()).then_some(order)
}

fn match_name<'a>(order: &[&'a SpanData], key: &str) -> Option<Option<&'a str>> {
    for s in order {
        if let Some(v) = s.attr(key) {
            return text_value(v).map(Some);
        }
    }
    for s in order {
        if let Some((_, v)) = s.resource.iter().find(|(k, _)| &**k == key) {
            return text_value(v).map(Some);
        }
    }
    Some(None)
}

fn text_value(v: &V) -> Option<&str> {
    match v {
        V::Null => Some(""),
        V::Str(s) => Some(s),
        _ => None,
    }
}

fn tool_name(s: &SpanData) -> Option<&str> {
    let stripped = s.name.strip_prefix("execute_tool").unwrap_or(&s.name);
    let stripped =
        stripped.trim_matches(|c: char| c.is_whitespace() || ('\x1c'..='\x1f').contains(&c));
    let fallback = if stripped.is_empty() {
        &s.name
    } else {
        stripped
    };
    text_or(s.attr("gen_ai.tool.name"), fallback)
}

fn token_count(v: Option<&V>) -> Option<Option<i128>> {
    match v {
        None | Some(V::Null | V::Bool(_) | V::Arr(_) | V::Obj(_)) => Some(None),
        Some(V::Int(i)) => Some((*i >= 0).then_some(*i as i128)),
        Some(_) => None,
    }
}

type Usage = Option<(Option<i128>, Option<i128>)>;

fn usage(s: &SpanData) -> Option<Usage> {
    let first = token_count(s.attr("gen_ai.usage.input_tokens"))?;
    let second = token_count(s.attr("gen_ai.usage.output_tokens"))?;
    Some((first.is_some() || second.is_some()).then_some((first, second)))
}

/// Lazily read messages of each span (by its place in `order`).
struct Memo<'a> {
    order: &'a [&'a SpanData],
    inputs: Vec<Option<Vec<Msg>>>,
    outputs: Vec<Option<Vec<Msg>>>,
}

impl Memo<'_> {
    fn inputs(&mut self, i: usize) -> Option<&[Msg]> {
        if self.inputs[i].is_none() {
            self.inputs[i] = Some(messages(self.order[i], "gen_ai.input.messages")?);
        }
        self.inputs[i].as_deref()
    }

    fn outputs(&mut self, i: usize) -> Option<&[Msg]> {
        if self.outputs[i].is_none() {
            self.outputs[i] = Some(messages(self.order[i], "gen_ai.output.messages")?);
        }
        self.outputs[i].as_deref()
    }
}

fn no_genai<'a>(order: &[&'a SpanData], trace_id: &'a str, name: &'a str) -> Assembled<'a> {
    let mut names: Vec<&str> = order.iter().map(|s| s.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let names = names[..names.len().min(5)].join(", ");
    let message = format!(
        "no GenAI span among its {} spans ({names}): no gen_ai.* attributes, no \
         openinference.span.kind; is the model client instrumented?",
        order.len()
    );
    let problem = Problem {
        reason: "no-genai-spans",
        message,
        span_id: None,
    };
    Assembled {
        trace_id,
        name,
        problems: vec![problem],
        case: None,
    }
}

fn agents_tree<'a>(order: &[&'a SpanData], roles: &[Role]) -> Option<Vec<Agent<'a>>> {
    let place: HashMap<&str, usize> = order
        .iter()
        .enumerate()
        .map(|(i, s)| (s.span_id.as_str(), i))
        .collect();
    let parent_of = |i: usize| -> Option<usize> {
        let s = order[i];
        if s.parent_id == s.span_id {
            return None;
        }
        place.get(s.parent_id.as_str()).copied()
    };
    let mut nodes: Vec<Agent<'a>> = Vec::new();
    let mut node_of: HashMap<usize, usize> = HashMap::default();
    let mut root: Option<usize> = None;
    for (i, s) in order.iter().enumerate() {
        if roles[i] != Role::Agent && roles[i] != Role::Tool {
            continue;
        }
        let mut up = parent_of(i);
        while let Some(u) = up {
            if node_of.contains_key(&u) {
                break;
            }
            up = parent_of(u);
        }
        let up = up.map(|u| node_of[&u]);
        if roles[i] == Role::Tool {
            if let Some(u) = up {
                nodes[u].tools.push(tool_name(s)?);
            }
            continue;
        }
        let node = Agent {
            name: text_or(s.attr("gen_ai.agent.name"), &s.name)?,
            span_id: &s.span_id,
            tools: Vec::new(),
            agents: Vec::new(),
        };
        nodes.push(node);
        let at = nodes.len() - 1;
        node_of.insert(i, at);
        match up {
            Some(u) => nodes[u].agents.push(at),
            None if root.is_none() => root = Some(at),
            None => {}
        }
    }
    // the root first: it is the first agent with no agent above it, i.e. the first node
    Some(match root {
        Some(0) => nodes,
        _ => Vec::new(),
    })
}

/// The test case of one trace (see the module docs), or None to use the Python assembler.
pub fn assemble<'a>(
    spans: &[&'a SpanData],
    matched: Option<&str>,
    known: &Known,
) -> Option<Assembled<'a>> {
    let first = spans.first()?;
    let trace_id = first.trace_id.as_str();
    let order = walk(spans)?;
    let name = match matched {
        Some(key) if !key.is_empty() => match_name(&order, key)?.unwrap_or(trace_id),
        _ => trace_id,
    };
    let roles = order
        .iter()
        .map(|s| role(s, known))
        .collect::<Option<Vec<Role>>>()?;
    let genai: Vec<usize> = (0..order.len())
        .filter(|&i| roles[i] != Role::Other)
        .collect();
    if genai.is_empty() {
        return Some(no_genai(&order, trace_id, name));
    }
    let chats: Vec<usize> = genai
        .iter()
        .copied()
        .filter(|&i| roles[i] == Role::Chat)
        .collect();
    let has_tools = genai.iter().any(|&i| roles[i] == Role::Tool);
    let top = genai
        .iter()
        .copied()
        .find(|&i| roles[i] == Role::Agent)
        .unwrap_or(genai[0]);
    let n = order.len();
    let mut memo = Memo {
        order: &order,
        inputs: (0..n).map(|_| None).collect(),
        outputs: (0..n).map(|_| None).collect(),
    };
    let mut question = user_text(memo.inputs(top)?);
    if question.is_empty() {
        if let Some(&c) = chats.first() {
            question = user_text(memo.inputs(c)?);
        }
    }
    let mut answer = if roles[top] != Role::Chat {
        answer_text(memo.outputs(top)?)
    } else {
        String::new()
    };
    for &c in chats.iter().rev() {
        if !answer.is_empty() {
            break;
        }
        answer = answer_text(memo.outputs(c)?);
    }
    let mut results: Option<Vec<(String, V)>> = None;
    if !has_tools {
        let mut found: Vec<(String, V)> = Vec::new();
        for &c in &chats {
            for m in memo.inputs(c)? {
                for (id, v) in &m.results {
                    if !found.iter().any(|(k, _)| k == id) {
                        found.push((id.clone(), v.clone()));
                    }
                }
            }
        }
        results = Some(found);
    }
    let mut calls: Vec<Call> = Vec::new();
    let mut steps: Vec<Step> = Vec::new();
    let mut problems: Vec<Problem> = Vec::new();
    for &i in &genai {
        let s = order[i];
        match roles[i] {
            Role::Chat => {
                let msgs = memo.outputs(i)?;
                let text = answer_text(msgs);
                if !text.is_empty() {
                    steps.push(Step::Thought(text));
                }
                let Some(results) = &results else { continue };
                for m in msgs {
                    for (call_id, tool, arguments) in &m.calls {
                        let found = results.iter().find(|(k, _)| k == call_id);
                        let name = if tool.is_empty() { "unnamed" } else { tool };
                        calls.push(Call {
                            name: name.to_string(),
                            arguments: arguments.clone(),
                            result: found.map_or(V::Null, |(_, v)| v.clone()),
                            duration_ms: None,
                            id: (!call_id.is_empty()).then(|| call_id.clone()),
                            has_result: found.is_some(),
                        });
                        steps.push(Step::Call(calls.len() - 1));
                        if found.is_none() {
                            let shown = if call_id.is_empty() { "no id" } else { call_id };
                            problems.push(Problem {
                                reason: "tool-call-without-result",
                                message: format!(
                                    "the model asked for tool call {tool} ({shown}) and no \
                                     later message carries its result"
                                ),
                                span_id: Some(s.span_id.to_string()),
                            });
                        }
                    }
                }
            }
            Role::Tool => {
                let tool = tool_name(s)?;
                if tool.is_empty() {
                    return None; // the Python path says why (a tool call needs a name)
                }
                let id = match s.attr("gen_ai.tool.call.id") {
                    None | Some(V::Null) => s.span_id.to_string(),
                    Some(V::Str(t)) if t.is_empty() => s.span_id.to_string(),
                    Some(V::Str(t)) => t.clone(),
                    Some(_) => return None,
                };
                let arguments =
                    arguments_of(s.attr("gen_ai.tool.call.arguments").unwrap_or(&V::Null))?;
                let result = match s.attr("gen_ai.tool.call.result") {
                    Some(v) => Some(parsed(v)?),
                    None => None,
                };
                let has_result = result.is_some();
                if !has_result {
                    problems.push(Problem {
                        reason: "tool-call-without-result",
                        message: format!(
                            "tool span {} ({tool}) records no result and no error; record \
                             gen_ai.tool.call.result (or output.value)",
                            s.span_id
                        ),
                        span_id: Some(s.span_id.to_string()),
                    });
                }
                calls.push(Call {
                    name: tool.to_string(),
                    arguments,
                    result: result.unwrap_or(V::Null),
                    duration_ms: Some(s.duration_ms()),
                    id: Some(id),
                    has_result,
                });
                steps.push(Step::Call(calls.len() - 1));
            }
            Role::Agent if i != top => {
                let agent = text_or(s.attr("gen_ai.agent.name"), &s.name)?;
                let asked = user_text(memo.inputs(i)?);
                let mut text = format!("invoke agent {agent}");
                if !asked.is_empty() {
                    text.push_str(": ");
                    text.push_str(&asked);
                }
                steps.push(Step::Action(text));
            }
            _ => {}
        }
    }
    if question.is_empty() && answer.is_empty() && calls.is_empty() {
        problems.push(Problem {
            reason: "no-content",
            message: "the trace records no messages and no tool calls: its instrumentation left \
                      message content out; record it (for the OpenTelemetry GenAI \
                      instrumentations, set \
                      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true)"
                .to_string(),
            span_id: Some(order[top].span_id.to_string()),
        });
    }
    let mut recorded: Vec<(Option<i128>, Option<i128>)> = Vec::new();
    for &c in &chats {
        recorded.extend(usage(order[c])?);
    }
    if recorded.is_empty() {
        recorded.extend(usage(order[top])?);
    }
    let usage = (!recorded.is_empty()).then(|| {
        let (mut inputs, mut outputs) = (0i128, 0i128);
        for (a, b) in &recorded {
            inputs += a.unwrap_or(0);
            outputs += b.unwrap_or(0);
        }
        (inputs, outputs, inputs + outputs)
    });
    let mut kept = Vec::new();
    for (i, s) in order.iter().enumerate() {
        let attributes: Vec<&(Key, V)> = if roles[i] == Role::Other {
            s.attrs.iter().collect()
        } else {
            s.attrs.iter().filter(|(k, _)| !known.contains(k)).collect()
        };
        if !attributes.is_empty() || roles[i] == Role::Other {
            kept.push(Kept {
                span: s,
                role: roles[i],
                attributes,
            });
        }
    }
    let agents = agents_tree(&order, &roles)?;
    Some(Assembled {
        trace_id,
        name,
        problems,
        case: Some(Case {
            question,
            answer,
            calls,
            steps,
            latency_ms: order[0].duration_ms(),
            usage,
            root: order[0],
            top: order[top],
            agents,
            kept,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The messages of a document as `messages` reads a span's attribute.
    fn read(text: &str) -> Option<Vec<Msg>> {
        message_list(text)
    }

    #[test]
    fn messages_are_read_as_they_stream_by() {
        let text = r#"[{"parts": [{"content": "a", "type": "text"}, 7, {"type": "text",
            "content": ""}, {"content": "b"}], "role": ""}, {"role": "assistant", "parts": [
            {"type": "tool_call", "id": "c1", "name": "f", "arguments": "{\"x\": 1}"},
            {"type": "tool_call_response", "id": "c1", "response": "[2]"}],
            "finish_reason": "stop"}]"#;
        let msgs = read(text).unwrap();
        assert_eq!(
            (msgs[0].role.as_str(), msgs[0].text.as_str()),
            ("user", "a\nb")
        );
        let (id, name, arguments) = &msgs[1].calls[0];
        assert_eq!((id.as_str(), name.as_str()), ("c1", "f"));
        assert_eq!(*arguments, V::Obj(vec![("x".into(), V::Int(1))]));
        assert_eq!(
            msgs[1].results,
            vec![("c1".into(), V::Arr(vec![V::Int(2)]))]
        );
    }

    #[test]
    fn messages_in_another_form_go_to_the_python_path() {
        for text in [
            r#"[{"role": "user", "parts": [], "name": "x"}]"#,
            r#"[{"role": "user"}]"#,
            r#"[{"role": 1, "parts": []}]"#,
            r#"[{"role": "user", "parts": {}}]"#,
            r#"[{"role": "user", "parts": [], "role": "user"}]"#,
            r#"[{"r\u006fle": "user", "parts": []}]"#,
            r#"["user"]"#,
            r#"[{"role": "user", "parts": [{"type": "tool_call", "id": 1}]}]"#,
            r#"[{"role": "user", "parts": []}] x"#,
        ] {
            assert!(read(text).is_none(), "{text}");
        }
        let deep = |n: usize| {
            let part = format!("{}1{}", "[".repeat(n), "]".repeat(n));
            format!(r#"[{{"role": "user", "parts": [{part}]}}]"#)
        };
        assert!(read(&deep(61)).is_some());
        assert!(
            read(&deep(62)).is_none(),
            "deeper than json::parse_str reads"
        );
    }
}
