//! The trace reader's fast path (`evalmark.traces._fast`): OTLP JSON requests read into
//! [`RawSpan`]s, and a trace of them assembled into ready values for a test case. Both give
//! `None` when the input is anything but the common forms (`traces/`), and the caller then
//! uses the Python path, which reads every form and reports bad input with its file and line.

use std::sync::{Mutex, OnceLock};

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use rustc_hash::FxHashMap;

use crate::traces::assemble::{self, Agent, Assembled, Case, Step};
use crate::traces::json::V;
use crate::traces::otlp::{self, Attrs, SpanData};

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

fn pairs<'py, 'a>(
    py: Python<'py>,
    fields: impl Iterator<Item = &'a (String, V)>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in fields {
        d.set_item(key(py, k), value(py, v)?)?;
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
    let mut last: Option<Py<PyString>> = None;
    for data in spans {
        let trace_id = match &last {
            Some(t) if t.bind(py).to_str()? == data.trace_id => t.clone_ref(py),
            _ => PyString::new(py, &data.trace_id).unbind(),
        };
        last = Some(trace_id.clone_ref(py));
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
    d.set_item(intern!(py, "trace-id"), &c.root.trace_id)?;
    d.set_item(intern!(py, "span-id"), &c.top.span_id)?;
    if let Some(source) = source {
        d.set_item(intern!(py, "trace-file-sha256"), source)?;
    }
    d.set_item(intern!(py, "span-end-unix-nano"), c.top.end)?;
    if !std::ptr::eq(c.root, c.top) {
        d.set_item(intern!(py, "root-span-id"), &c.root.span_id)?;
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
            e.set_item(intern!(py, "span-id"), &k.span.span_id)?;
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

fn case<'py>(py: Python<'py>, c: &Case<'_>, source: Option<&str>) -> PyResult<Bound<'py, PyTuple>> {
    let mut calls = Vec::with_capacity(c.calls.len());
    for call in &c.calls {
        let items: Vec<Bound<'py, PyAny>> = vec![
            PyString::new(py, &call.name).into_any(),
            value(py, &call.arguments)?,
            value(py, &call.result)?,
            call.duration_ms.into_pyobject(py)?.into_any(),
            call.id.as_deref().into_pyobject(py)?.into_any(),
            call.has_result.into_pyobject(py)?.to_owned().into_any(),
        ];
        calls.push(PyTuple::new(py, items)?);
    }
    let mut steps = Vec::with_capacity(c.steps.len());
    for step in &c.steps {
        steps.push(match step {
            Step::Thought(t) => (intern!(py, "thought"), t).into_pyobject(py)?.into_any(),
            Step::Action(t) => (intern!(py, "action"), t).into_pyobject(py)?.into_any(),
            Step::Call(i) => (intern!(py, "call"), *i).into_pyobject(py)?.into_any(),
        });
    }
    let usage = match c.usage {
        Some(u) => u.into_pyobject(py)?.into_any(),
        None => py.None().into_bound(py),
    };
    let items: Vec<Bound<'py, PyAny>> = vec![
        PyString::new(py, &c.question).into_any(),
        PyString::new(py, &c.answer).into_any(),
        PyList::new(py, calls)?.into_any(),
        PyList::new(py, steps)?.into_any(),
        c.latency_ms.into_pyobject(py)?.into_any(),
        usage,
        metadata(py, c, source)?.into_any(),
    ];
    PyTuple::new(py, items)
}

fn assembled<'py>(
    py: Python<'py>,
    a: &Assembled<'_>,
    source: Option<&str>,
) -> PyResult<Bound<'py, PyTuple>> {
    let mut problems = Vec::with_capacity(a.problems.len());
    for p in &a.problems {
        problems.push((p.reason, &p.message, p.span_id.as_deref()).into_pyobject(py)?);
    }
    let built = match &a.case {
        Some(c) => case(py, c, source)?.into_any(),
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
/// `(trace_id, name, problems, case)`, or None when the trace needs the Python assembler
/// (or a span is not a `RawSpan`).
#[pyfunction]
#[pyo3(signature = (spans, r#match = None, source = None))]
fn assemble_trace<'py>(
    py: Python<'py>,
    spans: &Bound<'py, PyList>,
    r#match: Option<&str>,
    source: Option<&str>,
) -> PyResult<Option<Bound<'py, PyTuple>>> {
    let mut held = Vec::with_capacity(spans.len());
    for item in spans.iter() {
        match item.cast_into::<RawSpan>() {
            Ok(s) => held.push(s),
            Err(_) => return Ok(None),
        }
    }
    let data: Vec<&SpanData> = held.iter().map(|s| &s.get().data).collect();
    match assemble::assemble(&data, r#match) {
        Some(a) => assembled(py, &a, source).map(Some),
        None => Ok(None),
    }
}

/// Add the trace reader's functions to the module.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<RawSpan>()?;
    m.add_function(wrap_pyfunction!(otlp_json_spans, m)?)?;
    m.add_function(wrap_pyfunction!(assemble_trace, m)?)?;
    Ok(())
}
