//! A test's heap shape: the harness's walk (see [`crate::harness`]) done
//! in Rust over the test's input values and the order in which the run
//! decided its lazy slots, giving the objects it builds and the arguments
//! of the call, in words and as C statements. A slot the run never read
//! stays [`Value::Unread`] (null in the C test: the code does not read it).

use crate::decls::{CType, IntKind};
use crate::harness::{is_char, ParamPlan, Unit};
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

/// A lazy slot: where it is, what it points to, its depth.
struct Slot {
    place: Place,
    pointee: CType,
    depth: u32,
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
                CType::Void | CType::FuncPtr(_) => Value::Null,
                // `__wd_lazy`: a slot while there is room, else null.
                pointee if self.slots.len() < self.capacity => {
                    self.slots.push(Slot { place: place.clone(), pointee: pointee.clone(), depth });
                    Value::Unread
                }
                _ => Value::Null,
            },
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
        let (pointee, depth) = (self.slots[k].pointee.clone(), self.slots[k].depth);
        let v = match pointee {
            CType::Struct(record) => self.ptr(record, depth),
            elem => self.array(&elem, false, depth).0,
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

    fn ptr(&mut self, i: usize, depth: u32) -> Value {
        let s = self.unit.settings;
        match self.choice() {
            0 => Value::Null,
            1 => {
                if self.made < s.max_objects && depth < s.max_depth {
                    let id = self.objects.len();
                    self.objects.push(Object { ty: ObjectType::Struct(i), value: Value::Null });
                    if self.pools.len() <= i {
                        self.pools.resize(i + 1, Vec::new());
                    }
                    self.pools[i].push(id);
                    self.made += 1;
                    let v = self.fill_struct(i, depth + 1, &mut Place::Object(id, Vec::new()));
                    self.objects[id].value = v;
                    Value::Ref(id)
                } else {
                    Value::Null
                }
            }
            c => match self.pools.get(i).and_then(|p| p.get((c as i64 - 2) as usize)) {
                Some(&id) if c >= 2 => Value::Ref(id),
                _ => Value::Null,
            },
        }
    }

    /// An array behind a pointer; `with_length` when a parameter holds its
    /// length (no terminating zero then). Returns the pointer and length.
    fn array(&mut self, elem: &CType, with_length: bool, depth: u32) -> (Value, i128) {
        let c = self.choice();
        if c < 1 || c as u32 > self.unit.settings.max_array {
            return (Value::Null, 0);
        }
        let id = self.objects.len();
        let string = is_char(elem) && !with_length;
        self.objects
            .push(Object { ty: ObjectType::Array { elem: elem.clone(), len: c as usize, string }, value: Value::Null });
        let elems = (0..c).map(|k| self.fill(elem, depth, &mut Place::Object(id, vec![k as usize]))).collect();
        self.objects[id].value = Value::Array(elems);
        (Value::Ref(id), c as i128)
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
        for (i, (_, ty)) in unit.entry.params.iter().enumerate() {
            match (&unit.plan[i], ty) {
                (ParamPlan::LengthOf(_), _) => {}
                (ParamPlan::ArrayWithLength(len), CType::Ptr(elem)) => {
                    let (p, n) = w.array(elem, true, 0);
                    w.args[i] = p;
                    let CType::Int(k) = &unit.entry.params[*len].1 else { unreachable!("a length is an integer") };
                    w.args[*len] = Value::Int(wrap(n, *k));
                }
                _ => w.args[i] = w.fill(ty, 0, &mut Place::Arg(i, Vec::new())),
            }
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
            let ty = match &o.ty {
                ObjectType::Struct(r) => unit.decls.records[*r].spelling.clone(),
                ObjectType::Array { elem, len, string } => {
                    format!("{}[{}]", unit.decls.spell(elem), len + usize::from(*string))
                }
            };
            let _ = write!(out, "; o{} = {ty} {}", i + 1, words(&o.value));
        }
        out
    }

    /// C statements that build the shape into locals `a0`, `a1`, … (and
    /// `o1`, `o2`, … for the objects), for a test function.
    pub fn c_statements(&self, unit: &Unit) -> String {
        let mut out = String::new();
        for (i, o) in self.objects.iter().enumerate() {
            let (ty, count) = match &o.ty {
                ObjectType::Struct(r) => (unit.decls.records[*r].spelling.clone(), "1".to_string()),
                ObjectType::Array { elem, len, string } => {
                    (unit.decls.spell(elem), (len + usize::from(*string)).to_string())
                }
            };
            let _ = writeln!(out, "  {ty} *o{n} = ({ty} *)__builtin_calloc({count}, sizeof({ty}));", n = i + 1);
        }
        for (i, o) in self.objects.iter().enumerate() {
            let ty = match &o.ty {
                ObjectType::Struct(r) => CType::Struct(*r),
                ObjectType::Array { elem, len, .. } => CType::Array(Box::new(elem.clone()), *len as u64),
            };
            let lvalue = match &o.ty {
                ObjectType::Struct(_) => format!("(*o{})", i + 1),
                ObjectType::Array { .. } => format!("o{}", i + 1),
            };
            assign(&mut out, unit, &lvalue, &ty, &o.value);
        }
        for ((name, ty), v) in unit.globals.iter().zip(&self.globals) {
            assign(&mut out, unit, name, ty, v);
        }
        for (i, ((_, ty), v)) in unit.entry.params.iter().zip(&self.args).enumerate() {
            match ty {
                CType::FuncPtr(s) => {
                    let _ = writeln!(out, "  __typeof__({s}) a{i} = 0;");
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
        Value::Null | Value::Unread => {
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
