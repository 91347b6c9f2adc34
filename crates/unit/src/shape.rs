//! A test's heap shape: the harness's walk (see [`crate::harness`]) done
//! in Rust over the test's input values and the order in which the run
//! decided its lazy slots, giving the objects it builds and the arguments
//! of the call, in words and as C statements. A slot the run never read
//! stays [`Value::Unread`] (null in the C test: the code does not read it).

use crate::contract::{Init, Length};
use crate::decls::{CType, IntKind};
use crate::harness::{buffer_elem, is_char, ParamPlan, Unit};
use std::fmt::Write as _;
use walkdown_ir::testvec::InputValue;

/// A value the harness stores.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// An integer (of the slot's type).
    Int(i128),
    /// A floating-point number.
    Float(f64),
    /// The null pointer.
    Null,
    /// The address of object number `n` (0-based) of [`Shape::objects`].
    Ref(usize),
    /// A struct in place: its fields.
    Struct(Vec<(String, Value)>),
    /// An array in place: its elements.
    Array(Vec<Value>),
    /// A lazy pointer the run never read (null in a C test).
    Unread,
    /// A function pointer parameter's stub, with the value it returns.
    Stub(Option<Box<Value>>),
}

/// An object the harness allocates.
#[derive(Clone, Debug, PartialEq)]
pub struct Object {
    /// A struct (index into the records), or an array of `len` elements.
    pub ty: ObjectType,
    /// Its contents: `Value::Struct` or `Value::Array`.
    pub value: Value,
}

/// What an object is.
#[derive(Clone, Debug, PartialEq)]
pub enum ObjectType {
    /// One struct.
    Struct(usize),
    /// An array; `string` when a zero byte follows its elements.
    Array {
        /// The element type.
        elem: CType,
        /// How many elements.
        len: usize,
        /// Whether a terminating zero follows.
        string: bool,
    },
    /// A struct the library's initializer makes (its contents are the
    /// initializer's business).
    Made {
        /// The struct.
        record: usize,
        /// How.
        init: Init,
    },
    /// A zero-filled buffer of a fixed length.
    Zeroed {
        /// The element type.
        elem: CType,
        /// How many elements.
        len: u64,
    },
}

/// The objects and arguments of one test.
#[derive(Clone, Debug, PartialEq)]
pub struct Shape {
    /// Objects in allocation order.
    pub objects: Vec<Object>,
    /// One value per parameter.
    pub args: Vec<Value>,
    /// One value per global input ([`Unit::globals`]).
    pub globals: Vec<Value>,
}

/// Where a value of the shape is: an argument, a global or an object, and
/// the field and element indices down to it.
#[derive(Clone, Debug, PartialEq)]
enum Place {
    Arg(usize, Vec<usize>),
    Global(usize, Vec<usize>),
    Object(usize, Vec<usize>),
}

impl Place {
    fn path(&mut self) -> &mut Vec<usize> {
        match self {
            Place::Arg(_, p) | Place::Global(_, p) | Place::Object(_, p) => p,
        }
    }
}

/// A lazy slot: where it is, what it points to, its depth, and whether
/// the contract keeps it from being NULL.
struct Slot {
    place: Place,
    pointee: CType,
    depth: u32,
    forced: bool,
}

struct Walk<'a> {
    unit: &'a Unit,
    values: &'a [InputValue],
    next: usize,
    objects: Vec<Object>,
    pools: Vec<Vec<usize>>,
    made: u32,
    slots: Vec<Slot>,
    capacity: usize,
    args: Vec<Value>,
    globals: Vec<Value>,
}

impl Walk<'_> {
    /// The next input (0 past the end, as the interpreter and the native
    /// harness give).
    fn int(&mut self) -> i128 {
        let v = self.values.get(self.next).copied();
        self.next += 1;
        match v {
            Some(InputValue::Int(i)) => i,
            Some(InputValue::Float(f)) => f as i128,
            None => 0,
        }
    }
    fn float(&mut self) -> f64 {
        let v = self.values.get(self.next).copied();
        self.next += 1;
        match v {
            Some(InputValue::Float(f)) => f,
            Some(InputValue::Int(i)) => i as f64,
            None => 0.0,
        }
    }
    /// A choice, read as the `int` the harness reads.
    fn choice(&mut self) -> i32 {
        self.int() as i32
    }

    /// The value of type `ty` at `place`, as the harness fills it.
    fn fill(&mut self, ty: &CType, depth: u32, place: &mut Place) -> Value {
        match ty {
            CType::Int(k) => Value::Int(wrap(self.int(), *k)),
            CType::Float => Value::Float(self.float() as f32 as f64),
            CType::Double | CType::LongDouble => Value::Float(self.float()),
            CType::Void | CType::FuncPtr(_) => Value::Null,
            CType::Struct(i) => self.fill_struct(*i, depth, place),
            CType::Array(elem, n) => Value::Array(
                (0..*n)
                    .map(|k| {
                        place.path().push(k as usize);
                        let v = self.fill(elem, depth, place);
                        place.path().pop();
                        v
                    })
                    .collect(),
            ),
            CType::Ptr(inner) => match &**inner {
                pointee if self.unit.slot_type(pointee).is_some() => self.slot(place, pointee, depth, false),
                _ => Value::Null,
            },
            CType::Opaque { .. } => Value::Null,
        }
    }

    /// `__wd_lazy`: a slot while there is room, else null.
    fn slot(&mut self, place: &Place, pointee: &CType, depth: u32, forced: bool) -> Value {
        if self.slots.len() < self.capacity {
            self.slots.push(Slot { place: place.clone(), pointee: pointee.clone(), depth, forced });
            Value::Unread
        } else {
            Value::Null
        }
    }

    fn fill_struct(&mut self, i: usize, depth: u32, place: &mut Place) -> Value {
        let fields = self.unit.decls.records[i].fields.clone();
        Value::Struct(
            fields
                .iter()
                .enumerate()
                .map(|(k, (name, ty))| {
                    place.path().push(k);
                    let v = self.fill(ty, depth, place);
                    place.path().pop();
                    (name.clone(), v)
                })
                .collect(),
        )
    }

    /// `__wd_resolve` deciding slot `k` (the first time only).
    fn decide(&mut self, k: usize, done: &mut [bool]) {
        if k >= self.slots.len() || done[k] {
            return;
        }
        done[k] = true;
        let (pointee, depth, forced) = (self.slots[k].pointee.clone(), self.slots[k].depth, self.slots[k].forced);
        let v = match pointee {
            CType::Struct(record) => self.ptr(record, depth, forced),
            elem => self.lazy_array(&elem, depth, forced),
        };
        let place = self.slots[k].place.clone();
        let (root, path) = match &place {
            Place::Arg(i, p) => (&mut self.args[*i], p),
            Place::Global(g, p) => (&mut self.globals[*g], p),
            Place::Object(o, p) => (&mut self.objects[*o].value, p),
        };
        let mut at = root;
        for &ix in path {
            at = match at {
                Value::Struct(fields) => &mut fields[ix].1,
                Value::Array(elems) => &mut elems[ix],
                _ => return,
            };
        }
        *at = v;
    }

    /// `__wd_ptr_R`: a choice; `forced` (a slot the contract keeps from
    /// NULL, in assume mode) makes a fresh object of anything but an alias.
    fn ptr(&mut self, i: usize, depth: u32, forced: bool) -> Value {
        let s = self.unit.settings;
        let c = self.choice();
        if c >= 2 {
            if let Some(&id) = self.pools.get(i).and_then(|p| p.get((c as i64 - 2) as usize)) {
                return Value::Ref(id);
            }
        }
        if !(forced || (c == 1 && self.made < s.max_objects && depth < s.max_depth)) {
            return Value::Null;
        }
        let id = self.objects.len();
        self.objects.push(Object { ty: ObjectType::Struct(i), value: Value::Null });
        if self.pools.len() <= i {
            self.pools.resize(i + 1, Vec::new());
        }
        if self.pools[i].len() < self.unit.pool_size() as usize {
            self.pools[i].push(id);
        }
        self.made += 1;
        let v = self.fill_struct(i, depth + 1, &mut Place::Object(id, Vec::new()));
        self.objects[id].value = v;
        Value::Ref(id)
    }

    /// `__wd_arr_K`: a length choice of 1 to `max_array` (one element when
    /// `forced` and out of range), else null.
    fn lazy_array(&mut self, elem: &CType, depth: u32, forced: bool) -> Value {
        let ma = i32::try_from(self.unit.settings.max_array).unwrap_or(i32::MAX);
        let mut c = self.choice();
        if forced && !(1..=ma).contains(&c) {
            c = 1;
        }
        if !(1..=ma).contains(&c) {
            return Value::Null;
        }
        Value::Ref(self.array_object(elem, c as usize, is_char(elem), depth))
    }

    /// A new array object of `len` elements, each built in turn.
    fn array_object(&mut self, elem: &CType, len: usize, string: bool, depth: u32) -> usize {
        let id = self.objects.len();
        self.objects.push(Object { ty: ObjectType::Array { elem: elem.clone(), len, string }, value: Value::Null });
        let elems = (0..len).map(|k| self.fill(elem, depth, &mut Place::Object(id, vec![k]))).collect();
        self.objects[id].value = Value::Array(elems);
        id
    }

    /// The current value of the length parameter `j` (an integer, or the
    /// integer it points to).
    fn length_value(&self, j: usize) -> i128 {
        match &self.args[j] {
            Value::Int(n) => *n,
            Value::Ref(o) => match &self.objects[*o].value {
                Value::Array(v) => match v.first() {
                    Some(Value::Int(n)) => *n,
                    _ => 0,
                },
                _ => 0,
            },
            _ => 0,
        }
    }

    /// Parameter `i`, as `main` builds it (see `Unit::build_param`).
    fn param(&mut self, i: usize) {
        let unit = self.unit;
        let ty = &unit.entry.params[i].1;
        let assume = unit.assumes();
        let nonnull = unit.contract.nonnull(i).is_some();
        match &unit.plan[i] {
            ParamPlan::LengthOf(_) => {}
            ParamPlan::Value => match ty {
                CType::Ptr(inner) if unit.slot_type(inner).is_some() => {
                    self.args[i] = self.slot(&Place::Arg(i, Vec::new()), inner, 0, assume && nonnull);
                }
                _ => self.args[i] = self.fill(ty, 0, &mut Place::Arg(i, Vec::new())),
            },
            ParamPlan::Buffer(length) => self.buffer(i, *length),
            ParamPlan::Init(init) => {
                let CType::Ptr(inner) = ty else { return };
                let CType::Struct(record) = **inner else { return };
                let made = |w: &mut Self| {
                    let id = w.objects.len();
                    w.objects.push(Object { ty: ObjectType::Made { record, init: init.clone() }, value: Value::Null });
                    Value::Ref(id)
                };
                self.args[i] = if assume && !unit.contract.nullable[i] {
                    made(self)
                } else if assume {
                    if self.choice() == 0 {
                        Value::Null
                    } else {
                        made(self)
                    }
                } else if self.choice() == 0 {
                    made(self)
                } else {
                    self.slot(&Place::Arg(i, Vec::new()), inner, 0, false)
                };
            }
            ParamPlan::Stub => {
                if (unit.contract.nullable[i] || !assume) && self.choice() == 0 {
                    self.args[i] = Value::Null;
                    return;
                }
                let ret = unit.stub_return(i).cloned().map(|t| Box::new(self.fill(&t, 0, &mut Place::Arg(i, vec![]))));
                self.args[i] = Value::Stub(ret);
            }
        }
    }

    /// A buffer parameter and its length (see `Unit::buffer_param`).
    fn buffer(&mut self, i: usize, length: Length) {
        let unit = self.unit;
        let elem = buffer_elem(&unit.entry.params[i].1);
        let (j, deref) = match length {
            Length::Const(len) => {
                let id = self.objects.len();
                self.objects.push(Object { ty: ObjectType::Zeroed { elem, len }, value: Value::Null });
                self.args[i] = Value::Ref(id);
                return;
            }
            Length::Param(j) => (j, false),
            Length::Deref(j) => (j, true),
        };
        let owner = unit.contract.length_of[j] == Some(i);
        let report = !unit.assumes();
        let ma = i32::try_from(unit.settings.max_array).unwrap_or(i32::MAX);
        let mut c = if owner || report {
            let c = self.choice();
            if (0..=ma).contains(&c) {
                c
            } else if unit.contract.nonnull(i).is_some() && !report {
                0
            } else {
                -1
            }
        } else {
            self.length_value(j) as i32
        };
        if c >= 0 {
            let id = self.array_object(&elem, c as usize, unit.buffer_is_string(i), 0);
            self.args[i] = Value::Ref(id);
        } else {
            self.args[i] = Value::Null;
            c = 0;
        }
        if !owner {
            return;
        }
        let len_ty = match &unit.entry.params[j].1 {
            CType::Ptr(inner) => (**inner).clone(),
            other => other.clone(),
        };
        let CType::Int(k) = len_ty else { return };
        let n = if report { wrap(self.int(), k) } else { wrap(i128::from(c), k) };
        if deref {
            let id = self.objects.len();
            let ty = ObjectType::Array { elem: len_ty, len: 1, string: false };
            self.objects.push(Object { ty, value: Value::Array(vec![Value::Int(n)]) });
            self.args[j] = Value::Ref(id);
        } else {
            self.args[j] = Value::Int(n);
        }
    }
}

/// The slots a run decided, in order, from what it printed (the harness
/// prints `\x1eK\x1f` for slot `K`; the program's own output around it is
/// skipped).
pub fn decisions(output: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < output.len() {
        if output[i] == 0x1e {
            let digits = output[i + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
            if digits > 0 && output.get(i + 1 + digits) == Some(&0x1f) {
                if let Ok(k) = std::str::from_utf8(&output[i + 1..i + 1 + digits]).unwrap_or("").parse() {
                    out.push(k);
                }
                i += digits + 2;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// The clauses of the contract a run broke, in order, from what it printed
/// (the harness prints `\x1dK\x1f` for clause `K`, in report mode).
pub fn broken_clauses(output: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < output.len() {
        if output[i] == 0x1d {
            let digits = output[i + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
            if digits > 0 && output.get(i + 1 + digits) == Some(&0x1f) {
                if let Ok(k) = std::str::from_utf8(&output[i + 1..i + 1 + digits]).unwrap_or("").parse() {
                    if !out.contains(&k) {
                        out.push(k);
                    }
                }
                i += digits + 2;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// An integer input as the harness stores it in a slot of kind `k`.
fn wrap(v: i128, k: IntKind) -> i128 {
    let bits = match k {
        IntKind::Bool => return (v != 0) as i128,
        IntKind::Char | IntKind::SChar | IntKind::UChar => 8,
        IntKind::Short | IntKind::UShort => 16,
        IntKind::Int | IntKind::UInt => 32,
        // The widest case; ILP32's 32-bit `long` values come in range anyway.
        _ => 64,
    };
    let m = v & ((1i128 << bits) - 1);
    if k.signed() && m >= 1i128 << (bits - 1) {
        m - (1i128 << bits)
    } else {
        m
    }
}

impl Shape {
    /// The shape a test's input values build, given the slots its run
    /// decided, in order (see [`decisions`]).
    pub fn decode(unit: &Unit, values: &[InputValue], decided: &[usize]) -> Shape {
        let mut w = Walk {
            unit,
            values,
            next: 0,
            objects: Vec::new(),
            pools: Vec::new(),
            made: 0,
            slots: Vec::new(),
            capacity: unit.slot_capacity(),
            args: vec![Value::Null; unit.entry.params.len()],
            globals: Vec::new(),
        };
        for (g, (_, ty)) in unit.globals.iter().enumerate() {
            let v = w.fill(ty, 0, &mut Place::Global(g, Vec::new()));
            w.globals.push(v);
        }
        for i in 0..unit.entry.params.len() {
            w.param(i);
        }
        let mut done = vec![false; w.capacity];
        for &k in decided {
            w.decide(k, &mut done);
        }
        Shape { objects: w.objects, args: w.args, globals: w.globals }
    }

    /// The shape in words: `self = &o1, out = NULL; o1 = struct node {…}`.
    pub fn describe(&self, unit: &Unit) -> String {
        let args: Vec<String> = unit
            .entry
            .params
            .iter()
            .zip(&self.args)
            .chain(unit.globals.iter().zip(&self.globals))
            .map(|((n, _), v)| format!("{n} = {}", words(v)))
            .collect();
        let mut out = args.join(", ");
        for (i, o) in self.objects.iter().enumerate() {
            let what = match &o.ty {
                ObjectType::Struct(r) => format!("{} {}", unit.decls.records[*r].spelling, words(&o.value)),
                ObjectType::Array { elem, len, string } => {
                    format!("{}[{}] {}", unit.decls.spell(elem), len + usize::from(*string), words(&o.value))
                }
                ObjectType::Made { record, init } => {
                    format!("{} made by {}", unit.decls.records[*record].spelling, init.name())
                }
                ObjectType::Zeroed { elem, len } => format!("{}[{len}] of zeros", unit.decls.spell(elem)),
            };
            let _ = write!(out, "; o{} = {what}", i + 1);
        }
        out
    }

    /// C statements that build the shape into locals `a0`, `a1`, … (and
    /// `o1`, `o2`, … for the objects), for a test function.
    pub fn c_statements(&self, unit: &Unit) -> String {
        let mut out = String::new();
        for (i, o) in self.objects.iter().enumerate() {
            let n = i + 1;
            let (ty, count) = match &o.ty {
                ObjectType::Struct(r) => (unit.decls.records[*r].spelling.clone(), "1".to_string()),
                ObjectType::Array { elem, len, string } => {
                    (unit.decls.spell(elem), (len + usize::from(*string)).to_string())
                }
                ObjectType::Zeroed { elem, len } => (unit.decls.spell(elem), len.to_string()),
                ObjectType::Made { record, init: Init::InPlace(f) } => {
                    let ty = &unit.decls.records[*record].spelling;
                    let _ = writeln!(out, "  {ty} *o{n} = ({ty} *)__builtin_calloc(1, sizeof({ty}));\n  {f}(o{n});");
                    continue;
                }
                ObjectType::Made { record, init: Init::Constructor(f) } => {
                    let _ = writeln!(out, "  {} *o{n} = {f}();", unit.decls.records[*record].spelling);
                    continue;
                }
            };
            let _ = writeln!(out, "  {ty} *o{n} = ({ty} *)__builtin_calloc({count}, sizeof({ty}));");
        }
        for (i, o) in self.objects.iter().enumerate() {
            let (ty, lvalue) = match &o.ty {
                ObjectType::Struct(r) => (CType::Struct(*r), format!("(*o{})", i + 1)),
                ObjectType::Array { elem, len, .. } => {
                    (CType::Array(Box::new(elem.clone()), *len as u64), format!("o{}", i + 1))
                }
                ObjectType::Made { .. } | ObjectType::Zeroed { .. } => continue,
            };
            assign(&mut out, unit, &lvalue, &ty, &o.value);
        }
        for ((name, ty), v) in unit.globals.iter().zip(&self.globals) {
            assign(&mut out, unit, name, ty, v);
        }
        for (i, ((_, ty), v)) in unit.entry.params.iter().zip(&self.args).enumerate() {
            match ty {
                CType::FuncPtr(s) => {
                    let value = match v {
                        Value::Stub(ret) => {
                            if let (Some(r), Some(t)) = (ret.as_deref(), unit.stub_return(i)) {
                                let _ = writeln!(out, "  __wd_stub_ret_{i} = {};", scalar_expr(unit, t, r));
                            }
                            format!("__wd_stub_{i}")
                        }
                        _ => "0".to_string(),
                    };
                    let _ = writeln!(out, "  __typeof__({s}) a{i} = {value};");
                }
                CType::Struct(_) | CType::Array(..) => {
                    let _ =
                        writeln!(out, "  {} a{i};\n  __builtin_memset(&a{i}, 0, sizeof a{i});", unit.decls.spell(ty));
                    assign(&mut out, unit, &format!("a{i}"), ty, v);
                }
                _ => {
                    let _ = writeln!(out, "  {} a{i} = {};", unit.decls.spell(ty).trim_end(), scalar_expr(unit, ty, v));
                }
            }
        }
        for i in 0..self.objects.len() {
            out = out.replace(&format!("(*o{}).", i + 1), &format!("o{}->", i + 1));
        }
        out
    }
}

/// Statements assigning `v` to `lvalue` of type `ty`.
fn assign(out: &mut String, unit: &Unit, lvalue: &str, ty: &CType, v: &Value) {
    match v {
        Value::Struct(fields) => {
            for ((name, fty), (_, fv)) in match ty {
                CType::Struct(r) => unit.decls.records[*r].fields.iter(),
                _ => [].iter(),
            }
            .zip(fields)
            {
                assign(out, unit, &format!("{lvalue}.{name}"), fty, fv);
            }
        }
        Value::Array(elems) => {
            let elem = match ty {
                CType::Array(e, _) => (**e).clone(),
                _ => CType::Int(IntKind::Int),
            };
            for (k, e) in elems.iter().enumerate() {
                assign(out, unit, &format!("{lvalue}[{k}]"), &elem, e);
            }
        }
        Value::Null | Value::Unread | Value::Stub(_) => {
            let _ = writeln!(out, "  {lvalue} = 0;");
        }
        Value::Ref(o) => {
            let _ = writeln!(out, "  {lvalue} = o{};", o + 1);
        }
        Value::Int(i) => {
            let spelled = unit.decls.spell(ty);
            let _ = writeln!(out, "  {lvalue} = ({spelled}){};", int_literal(*i));
        }
        Value::Float(f) => {
            let _ = writeln!(out, "  {lvalue} = {};", float_literal(*f));
        }
    }
}

/// The C expression of a scalar value of type `ty`.
fn scalar_expr(unit: &Unit, ty: &CType, v: &Value) -> String {
    match v {
        Value::Int(i) => format!("({}){}", unit.decls.spell(ty), int_literal(*i)),
        Value::Float(f) => float_literal(*f),
        Value::Ref(o) => format!("o{}", o + 1),
        _ => "0".into(),
    }
}

/// A C literal of `v` (wide enough for every integer type).
pub fn int_literal(v: i128) -> String {
    if v == i64::MIN as i128 {
        "(-9223372036854775807LL - 1)".into()
    } else if v < 0 {
        format!("({v}LL)")
    } else if v <= i64::MAX as i128 {
        format!("{v}LL")
    } else {
        format!("{v}ULL")
    }
}

/// A C expression of exactly `f`.
pub fn float_literal(f: f64) -> String {
    if f.is_nan() {
        "__builtin_nan(\"\")".into()
    } else if f.is_infinite() {
        if f > 0.0 {
            "__builtin_inf()".into()
        } else {
            "(-__builtin_inf())".into()
        }
    } else {
        // Rust's shortest round-trip spelling is a valid C double literal.
        let s = format!("{f:?}");
        if f < 0.0 {
            format!("({s})")
        } else {
            s
        }
    }
}

fn words(v: &Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::Float(f) => format!("{f:?}"),
        Value::Null => "NULL".into(),
        Value::Unread => "unread".into(),
        Value::Ref(o) => format!("&o{}", o + 1),
        Value::Stub(None) => "a stub".into(),
        Value::Stub(Some(r)) => format!("a stub returning {}", words(r)),
        Value::Struct(fields) => {
            let f: Vec<String> = fields.iter().map(|(n, v)| format!("{n} = {}", words(v))).collect();
            format!("{{{}}}", f.join(", "))
        }
        Value::Array(elems) => {
            let e: Vec<String> = elems.iter().map(words).collect();
            format!("{{{}}}", e.join(", "))
        }
    }
}
