//! The trace reader's fast path (`evalmark.traces._fast`): OTLP JSON requests read into
//! [`RawSpan`]s, and a trace of them assembled into ready values for a test case. Both give
//! `None` when the input is anything but the common forms (`traces/`), and the caller then
//! uses the Python path, which reads every form and reports bad input with its file and line.

use std::sync::{Arc, Mutex, OnceLock, RwLock};

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use rustc_hash::FxHashMap;

use crate::json_read::V;
use crate::traces::assemble::{self, Agent, Assembled, Case, Known, Step};
use crate::traces::otlp::{self, Attrs, Id, SpanData};

/// One span read by the fast path; `fields()` gives the arguments of a `Span`.
#[pyclass(frozen, module = "evalmark._core")]
pub struct RawSpan {
    trace_id: Py<PyString>,
    data: SpanData,
}

fn value<'py>(py: Python<'py>, v: &V) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        V::Null => py.None().into_bound(py),
        V::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        V::Int(i) => i.into_pyobject(py)?.into_any(),
        V::Float(x) => x.into_pyobject(py)?.into_any(),
        V::Str(s) => PyString::new(py, s).into_any(),
        V::Arr(items) => {
            let items = items
                .iter()
                .map(|x| value(py, x))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        V::Obj(fields) => pairs(py, fields.iter())?.into_any(),
    })
}

/// Attribute keys (and object keys) repeat from trace to trace: their Python strings are made
/// once (and hashed once), up to `KEY_CACHE_LIMIT` of them.
static KEY_CACHE: OnceLock<Mutex<FxHashMap<String, Py<PyString>>>> = OnceLock::new();
const KEY_CACHE_LIMIT: usize = 10_000;
const CACHED_KEY_LEN: usize = 64;

fn key<'py>(py: Python<'py>, k: &str) -> Bound<'py, PyString> {
    if k.len() > CACHED_KEY_LEN {
        return PyString::new(py, k);
    }
    let cache = KEY_CACHE.get_or_init(Default::default);
    let Ok(mut cache) = cache.lock() else {
        return PyString::new(py, k);
    };
    if let Some(s) = cache.get(k) {
        return s.bind(py).clone();
    }
    let s = PyString::new(py, k);
    if cache.len() < KEY_CACHE_LIMIT {
        cache.insert(k.to_string(), s.clone().unbind());
    }
    s
}

fn pairs<'py, 'a, K: AsRef<str> + 'a>(
    py: Python<'py>,
    fields: impl Iterator<Item = &'a (K, V)>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in fields {
        d.set_item(key(py, k.as_ref()), value(py, v)?)?;
    }
    Ok(d)
}

fn attrs<'py>(py: Python<'py>, a: &Attrs) -> PyResult<Bound<'py, PyDict>> {
    pairs(py, a.iter())
}

#[pymethods]
impl RawSpan {
    /// The trace id (lower-case hex).
    #[getter]
    fn trace_id(&self, py: Python<'_>) -> Py<PyString> {
        self.trace_id.clone_ref(py)
    }

    /// `(trace_id, span_id, parent_id, name, kind, start, end, attributes, events,
    /// status_code, status_message, resource)`: the fields of a `Span`.
    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let s = &self.data;
        let items: Vec<Bound<'py, PyAny>> = vec![
            self.trace_id.bind(py).clone().into_any(),
            PyString::new(py, &s.span_id).into_any(),
            PyString::new(py, &s.parent_id).into_any(),
            PyString::new(py, &s.name).into_any(),
            s.kind.into_pyobject(py)?.into_any(),
            s.start.into_pyobject(py)?.into_any(),
            s.end.into_pyobject(py)?.into_any(),
            attrs(py, &s.attrs)?.into_any(),
            PyTuple::empty(py).into_any(),
            s.status_code.into_pyobject(py)?.into_any(),
            PyString::new(py, &s.status_message).into_any(),
            attrs(py, &s.resource)?.into_any(),
        ];
        PyTuple::new(py, items)
    }
}

/// `otlp_json_spans(data)`: the spans of one OTLP JSON request as `RawSpan`s, or None when
/// the request is not in the common form (the Python decoder then reads it).
#[pyfunction]
fn otlp_json_spans(py: Python<'_>, data: &[u8]) -> PyResult<Option<Vec<Py<RawSpan>>>> {
    let Some(spans) = otlp::request_spans(data) else {
        return Ok(None);
    };
    let mut out = Vec::with_capacity(spans.len());
    let mut last: Option<(Id, Py<PyString>)> = None;
    for data in spans {
        let trace_id = match &last {
            Some((id, t)) if *id == data.trace_id => t.clone_ref(py),
            _ => {
                let t = PyString::new(py, &data.trace_id).unbind();
                last = Some((data.trace_id, t.clone_ref(py)));
                t
            }
        };
        let span = Py::new(py, RawSpan { trace_id, data })?;
        // SAFETY: a live object of a GC type; untracking it is allowed at any time (its
        // deallocation untracks only a tracked object). A RawSpan refers to nothing but a
        // string, so it can never be part of a cycle: the collector need not scan the
        // thousands of spans a reader holds, which cost a tenth of its time.
        unsafe { pyo3::ffi::PyObject_GC_UnTrack(span.as_ptr().cast()) };
        out.push(span);
    }
    Ok(Some(out))
}

fn agent<'py>(py: Python<'py>, agents: &[Agent<'_>], at: usize) -> PyResult<Bound<'py, PyDict>> {
    let a = &agents[at];
    let d = PyDict::new(py);
    d.set_item(intern!(py, "name"), a.name)?;
    d.set_item(intern!(py, "span-id"), a.span_id)?;
    d.set_item(intern!(py, "tools"), PyList::new(py, &a.tools)?)?;
    let nested = a
        .agents
        .iter()
        .map(|&i| agent(py, agents, i))
        .collect::<PyResult<Vec<_>>>()?;
    d.set_item(intern!(py, "agents"), PyList::new(py, nested)?)?;
    Ok(d)
}

fn metadata<'py>(
    py: Python<'py>,
    c: &Case<'_>,
    source: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item(intern!(py, "trace-id"), c.root.trace_id.as_str())?;
    d.set_item(intern!(py, "span-id"), c.top.span_id.as_str())?;
    if let Some(source) = source {
        d.set_item(intern!(py, "trace-file-sha256"), source)?;
    }
    d.set_item(intern!(py, "span-end-unix-nano"), c.top.end)?;
    if !std::ptr::eq(c.root, c.top) {
        d.set_item(intern!(py, "root-span-id"), c.root.span_id.as_str())?;
    }
    if !c.root.resource.is_empty() {
        d.set_item(intern!(py, "resource"), attrs(py, &c.root.resource)?)?;
    }
    if !c.agents.is_empty() {
        d.set_item(intern!(py, "agents"), agent(py, &c.agents, 0)?)?;
    }
    if !c.kept.is_empty() {
        let mut kept = Vec::with_capacity(c.kept.len());
        for k in &c.kept {
            let e = PyDict::new(py);
            e.set_item(intern!(py, "span-id"), k.span.span_id.as_str())?;
            e.set_item(intern!(py, "name"), key(py, &k.span.name))?;
            e.set_item(intern!(py, "kind"), k.role.name())?;
            if !k.attributes.is_empty() {
                e.set_item(
                    intern!(py, "attributes"),
                    pairs(py, k.attributes.iter().copied())?,
                )?;
            }
            kept.push(e);
        }
        d.set_item(intern!(py, "spans"), PyList::new(py, kept)?)?;
    }
    Ok(d)
}

/// What `evalmark.traces._fast` hands over once, when it is imported (`trace_setup`): the
/// reader's table of known attribute keys, and the blank values each test case and its parts
/// are copied from (with `encode` and `text_of`, the reader's value-as-text).
struct Setup {
    known: Known,
    /// `TestCase`, `ToolCall`, `ReasoningStep`, `TokenUsage`: a valid blank of each...
    blanks: [Py<PyAny>; 4],
    /// ... and its type's `__copy__` (msgspec's copy in C: no `__post_init__`).
    copies: [Py<PyAny>; 4],
    /// The compact JSON encoder (keys sorted) `text_of` uses: bytes.
    encode: Py<PyAny>,
    text_of: Py<PyAny>,
}

const CASE: usize = 0;
const CALL: usize = 1;
const STEP: usize = 2;
const USAGE: usize = 3;

/// Until `trace_setup` is called, `assemble_trace` hands every trace to the Python assembler.
static SETUP: RwLock<Option<Arc<Setup>>> = RwLock::new(None);

fn setup() -> Option<Arc<Setup>> {
    SETUP.read().ok()?.clone()
}

/// `trace_setup(known, prefixes, blanks, encode, text_of)`: the known attribute keys and key
/// prefixes (`evalmark.traces._keys`), the blank `(TestCase, ToolCall, ReasoningStep,
/// TokenUsage)` the fast path's values are copied from, and the function giving a value as
/// text with the JSON encoder it uses. Called once by `evalmark.traces._fast`; a later call
/// replaces it.
#[pyfunction]
fn trace_setup(
    known: Vec<String>,
    prefixes: Vec<String>,
    blanks: (Py<PyAny>, Py<PyAny>, Py<PyAny>, Py<PyAny>),
    encode: Py<PyAny>,
    text_of: Py<PyAny>,
    py: Python<'_>,
) -> PyResult<()> {
    let blanks = [blanks.0, blanks.1, blanks.2, blanks.3];
    let mut copies = Vec::with_capacity(4);
    for blank in &blanks {
        copies.push(
            blank
                .bind(py)
                .get_type()
                .getattr(intern!(py, "__copy__"))?
                .unbind(),
        );
    }
    let Ok(copies) = <[Py<PyAny>; 4]>::try_from(copies) else {
        unreachable!("four blanks, four copies")
    };
    let made = Setup {
        known: Known::new(known, prefixes),
        blanks,
        copies,
        encode,
        text_of,
    };
    match SETUP.write() {
        Ok(mut held) => *held = Some(Arc::new(made)),
        Err(poisoned) => *poisoned.into_inner() = Some(Arc::new(made)),
    }
    Ok(())
}

impl Setup {
    /// A copy of blank `which`, its fields not yet set.
    fn blank<'py>(&self, py: Python<'py>, which: usize) -> PyResult<Bound<'py, PyAny>> {
        self.copies[which]
            .bind(py)
            .call1((self.blanks[which].bind(py),))
    }

    /// `text_of(value)`: a string itself, None as "", anything else as compact JSON (its
    /// encoder called here, `text_of` itself only if the encoder refuses the value).
    fn text<'py>(&self, py: Python<'py>, v: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyString>> {
        if v.is_none() {
            return Ok(PyString::new(py, ""));
        }
        if let Ok(s) = v.cast::<PyString>() {
            return Ok(s.clone());
        }
        if let Ok(encoded) = self.encode.bind(py).call1((v,)) {
            if let Ok(text) = std::str::from_utf8(encoded.cast::<PyBytes>()?.as_bytes()) {
                return Ok(PyString::new(py, text));
            }
        }
        Ok(self.text_of.bind(py).call1((v,))?.cast_into::<PyString>()?)
    }
}

/// Set field `name` of a msgspec struct (frozen or not), as `msgspec.structs.force_setattr`
/// does, for a value of the field's type: msgspec leaves a struct of plain values untracked
/// by the garbage collector, so the struct is tracked once it holds a value the collector
/// follows (else a reference cycle through it would never be collected).
fn set<'py>(
    obj: &Bound<'py, PyAny>,
    name: &Bound<'py, PyString>,
    v: &Bound<'py, PyAny>,
) -> PyResult<()> {
    use pyo3::ffi;
    // SAFETY: three live objects; the generic setter stores `v` in the struct's slot for
    // `name` (a member descriptor of its type), the way msgspec's force_setattr does, past
    // the frozen struct's own `__setattr__`.
    let done = unsafe { ffi::PyObject_GenericSetAttr(obj.as_ptr(), name.as_ptr(), v.as_ptr()) };
    if done < 0 {
        return Err(PyErr::fetch(obj.py()));
    }
    let (o, x) = (obj.as_ptr(), v.as_ptr());
    // SAFETY: live objects; the struct's type is a collected type (checked) before it is
    // tracked, and only when it is not tracked yet. The rule is msgspec's: a value of a
    // collected type counts, except a tuple the collector has untracked.
    unsafe {
        let followed = ffi::PyType_IS_GC(ffi::Py_TYPE(x)) != 0
            && (ffi::PyTuple_CheckExact(x) == 0 || ffi::PyObject_GC_IsTracked(x) != 0);
        if followed && ffi::PyType_IS_GC(ffi::Py_TYPE(o)) != 0 && ffi::PyObject_GC_IsTracked(o) == 0
        {
            ffi::PyObject_GC_Track(o.cast());
        }
    }
    Ok(())
}

fn step<'py>(
    py: Python<'py>,
    b: &Setup,
    kind: &Bound<'py, PyString>,
    content: &Bound<'py, PyString>,
    call: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let s = b.blank(py, STEP)?;
    set(&s, intern!(py, "type"), kind)?;
    set(&s, intern!(py, "content"), content)?;
    if let Some(call) = call {
        set(&s, intern!(py, "tool_call"), call)?;
    }
    Ok(s)
}

/// The `TestCase` of an assembled trace, built from copies of the blanks without the public
/// constructors' checks: the values are valid by construction (names, mappings, durations
/// and token counts), and tests/traces/test_trace_trusted_build.py holds them equal to what
/// the public constructors build.
fn case<'py>(
    py: Python<'py>,
    b: &Setup,
    c: &Case<'_>,
    name: &str,
    source: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let mut calls = Vec::with_capacity(c.calls.len());
    for call in &c.calls {
        let obj = b.blank(py, CALL)?;
        let arguments = value(py, &call.arguments)?;
        let result = value(py, &call.result)?;
        set(
            &obj,
            intern!(py, "name"),
            PyString::new(py, &call.name).as_any(),
        )?;
        set(&obj, intern!(py, "arguments"), &arguments)?;
        if !result.is_none() {
            set(&obj, intern!(py, "result"), &result)?;
        }
        if let Some(d) = call.duration_ms {
            set(
                &obj,
                intern!(py, "duration_ms"),
                d.into_pyobject(py)?.as_any(),
            )?;
        }
        if let Some(id) = &call.id {
            set(&obj, intern!(py, "id"), PyString::new(py, id).as_any())?;
        }
        calls.push((obj, arguments, result));
    }
    let mut steps = Vec::with_capacity(c.steps.len() + c.calls.len());
    for s in &c.steps {
        match s {
            Step::Thought(t) => steps.push(step(
                py,
                b,
                intern!(py, "thought"),
                &PyString::new(py, t),
                None,
            )?),
            Step::Action(t) => steps.push(step(
                py,
                b,
                intern!(py, "action"),
                &PyString::new(py, t),
                None,
            )?),
            Step::Call(i) => {
                let (obj, arguments, result) = &calls[*i];
                let shown = format!("{}({})", c.calls[*i].name, b.text(py, arguments)?.to_str()?);
                let action = PyString::new(py, &shown);
                steps.push(step(py, b, intern!(py, "action"), &action, Some(obj))?);
                if c.calls[*i].has_result {
                    let seen = b.text(py, result)?;
                    steps.push(step(py, b, intern!(py, "observation"), &seen, None)?);
                }
            }
        }
    }
    let out = b.blank(py, CASE)?;
    set(
        &out,
        intern!(py, "input"),
        PyString::new(py, &c.question).as_any(),
    )?;
    set(
        &out,
        intern!(py, "actual_output"),
        PyString::new(py, &c.answer).as_any(),
    )?;
    // always: the blank's own metadata dict must not be shared
    set(
        &out,
        intern!(py, "metadata"),
        metadata(py, c, source)?.as_any(),
    )?;
    if !calls.is_empty() {
        let tuple = PyTuple::new(py, calls.iter().map(|(obj, _, _)| obj))?;
        set(&out, intern!(py, "tool_calls"), tuple.as_any())?;
    }
    if !steps.is_empty() {
        set(
            &out,
            intern!(py, "reasoning_trace"),
            PyTuple::new(py, steps)?.as_any(),
        )?;
    }
    set(
        &out,
        intern!(py, "latency_ms"),
        c.latency_ms.into_pyobject(py)?.as_any(),
    )?;
    if let Some((inputs, outputs, total)) = c.usage {
        let usage = b.blank(py, USAGE)?;
        set(
            &usage,
            intern!(py, "input"),
            inputs.into_pyobject(py)?.as_any(),
        )?;
        set(
            &usage,
            intern!(py, "output"),
            outputs.into_pyobject(py)?.as_any(),
        )?;
        set(
            &usage,
            intern!(py, "total"),
            total.into_pyobject(py)?.as_any(),
        )?;
        set(&out, intern!(py, "token_usage"), &usage)?;
    }
    set(&out, intern!(py, "name"), PyString::new(py, name).as_any())?;
    Ok(out)
}

fn assembled<'py>(
    py: Python<'py>,
    b: &Setup,
    a: &Assembled<'_>,
    source: Option<&str>,
) -> PyResult<Bound<'py, PyTuple>> {
    let mut problems = Vec::with_capacity(a.problems.len());
    for p in &a.problems {
        problems.push((p.reason, &p.message, p.span_id.as_deref()).into_pyobject(py)?);
    }
    let built = match &a.case {
        Some(c) => case(py, b, c, a.name, source)?,
        None => py.None().into_bound(py),
    };
    let items: Vec<Bound<'py, PyAny>> = vec![
        PyString::new(py, a.trace_id).into_any(),
        PyString::new(py, a.name).into_any(),
        PyList::new(py, problems)?.into_any(),
        built,
    ];
    PyTuple::new(py, items)
}

/// `assemble_trace(spans, match=None, source=None)`: one trace's `RawSpan`s as
/// `(trace_id, name, problems, case)` (`case` a `TestCase`, or None for a trace that cannot be
/// evaluated), or None when the trace needs the Python assembler, a span is not a `RawSpan`,
/// or `trace_setup` was not called.
#[pyfunction]
#[pyo3(signature = (spans, r#match = None, source = None))]
fn assemble_trace<'py>(
    py: Python<'py>,
    spans: &Bound<'py, PyList>,
    r#match: Option<&str>,
    source: Option<&str>,
) -> PyResult<Option<Bound<'py, PyTuple>>> {
    let Some(b) = setup() else {
        return Ok(None);
    };
    let mut held = Vec::with_capacity(spans.len());
    for item in spans.iter() {
        match item.cast_into::<RawSpan>() {
            Ok(s) => held.push(s),
            Err(_) => return Ok(None),
        }
    }
    let data: Vec<&SpanData> = held.iter().map(|s| &s.get().data).collect();
    match assemble::assemble(&data, r#match, &b.known) {
        Some(a) => assembled(py, &b, &a, source).map(Some),
        None => Ok(None),
    }
}

/// Add the trace reader's functions to the module.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<RawSpan>()?;
    m.add_function(wrap_pyfunction!(otlp_json_spans, m)?)?;
    m.add_function(wrap_pyfunction!(assemble_trace, m)?)?;
    m.add_function(wrap_pyfunction!(trace_setup, m)?)?;
    Ok(())
}
