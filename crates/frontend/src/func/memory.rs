//! Values that are not one IR scalar: aggregates (structs and arrays held
//! as values, split into scalar leaves) and integers of odd widths (`i48`,
//! kept in the next wider type and masked), with their loads, stores and
//! casts.

use super::*;

impl<'a, 'm> FuncLowerer<'a, 'm> {
    /// The scalar leaves of aggregate type `ty` (values unknown), at byte
    /// offsets from `base`.
    pub(super) fn leaves(&self, ty: &TypeRef, base: u64, path: &mut Vec<u32>, out: &mut Vec<Leaf>) -> Res<()> {
        let resolved = self.cx.layout.resolve(ty).map_err(|e| self.unsupported(e))?;
        match resolved.as_ref() {
            LType::StructType { element_types, is_packed } => {
                let (_, offs) =
                    self.cx.layout.struct_layout(element_types, *is_packed).map_err(|e| self.unsupported(e))?;
                for (i, (t, o)) in element_types.iter().zip(offs).enumerate() {
                    path.push(i as u32);
                    self.leaves(t, base + o, path, out)?;
                    path.pop();
                }
            }
            LType::ArrayType { element_type, num_elements } | LType::VectorType { element_type, num_elements, .. } => {
                let stride = self.cx.layout.size_of(element_type).map_err(|e| self.unsupported(e))?;
                if *num_elements > 64 {
                    return Err(self.unsupported(format!("an aggregate value of type {resolved}")));
                }
                for i in 0..*num_elements {
                    path.push(i as u32);
                    self.leaves(element_type, base + stride * i as u64, path, out)?;
                    path.pop();
                }
            }
            _ => {
                self.scalar(&resolved)?;
                out.push(Leaf { path: path.clone(), off: base, ty: resolved.clone(), val: None });
            }
        }
        Ok(())
    }

    /// The type `op` points to, if it is an aggregate.
    pub(super) fn aggregate_pointee(&self, op: &LOp) -> Option<TypeRef> {
        match self.type_of_op(op).as_ref() {
            LType::PointerType { pointee_type, .. } if is_aggregate(pointee_type) => Some(pointee_type.clone()),
            _ => None,
        }
    }

    pub(super) fn new_agg(&mut self, leaves: Vec<Leaf>) -> Lowered {
        self.aggs.push(leaves);
        Lowered::Agg(self.aggs.len() - 1)
    }

    /// The leaves of an aggregate operand.
    pub(super) fn agg_operand(&mut self, op: &LOp) -> Res<Vec<Leaf>> {
        match self.lowered(op)? {
            Lowered::Agg(i) => Ok(self.aggs[i].clone()),
            _ => Err(self.unsupported("a scalar used as an aggregate value")),
        }
    }

    /// An aggregate constant (`undef`, `zeroinitializer`, a literal struct
    /// or vector).
    pub(super) fn constant_agg(&mut self, c: &ConstantRef) -> Res<Lowered> {
        let ty = self.cx.module.types.type_of(c);
        let mut leaves = Vec::new();
        self.leaves(&ty, 0, &mut Vec::new(), &mut leaves)?;
        for leaf in &mut leaves {
            let mut k = c.clone();
            for &i in &leaf.path {
                k = match k.as_ref() {
                    Constant::Struct { values, .. } => values.get(i as usize).cloned(),
                    Constant::Array { elements, .. } => elements.get(i as usize).cloned(),
                    Constant::Vector(elements) => elements.get(i as usize).cloned(),
                    _ => None,
                }
                .unwrap_or(k);
            }
            let v = match k.as_ref() {
                Constant::Undef(_) | Constant::Poison(_) | Constant::AggregateZero(_) => {
                    let t = self.scalar(&leaf.ty)?;
                    Operand::Const(Const { ty: t, bits: 0 })
                }
                _ if is_aggregate(&self.cx.module.types.type_of(&k)) => {
                    return Err(self.unsupported(format!("aggregate constant {c}")))
                }
                _ => self.constant(&k)?,
            };
            leaf.val = Some(v);
        }
        Ok(self.new_agg(leaves))
    }

    /// Loads every leaf of an aggregate from `ptr`.
    pub(super) fn load_agg(&mut self, ty: &TypeRef, ptr: Operand) -> Res<Lowered> {
        let mut leaves = Vec::new();
        self.leaves(ty, 0, &mut Vec::new(), &mut leaves)?;
        for leaf in &mut leaves {
            let at = self.ptr_add_const(ptr, leaf.off as i64);
            let v = match odd_int_bits(&leaf.ty) {
                Some(n) => self.load_odd(at, n),
                None => {
                    let t = self.scalar(&leaf.ty)?;
                    self.emit_value(InstKind::Load { ty: t, ptr: at })
                }
            };
            leaf.val = Some(v);
        }
        Ok(self.new_agg(leaves))
    }

    /// Stores every leaf of an aggregate to `ptr`.
    pub(super) fn store_agg(&mut self, leaves: &[Leaf], ptr: Operand) -> Res<()> {
        for leaf in leaves {
            let Some(v) = leaf.val else { return Err(self.unsupported("an incomplete aggregate value")) };
            let at = self.ptr_add_const(ptr, leaf.off as i64);
            match odd_int_bits(&leaf.ty) {
                Some(n) => self.store_odd(at, v, n),
                None => {
                    let t = self.scalar(&leaf.ty)?;
                    self.emit(InstKind::Store { ty: t, ptr: at, value: v });
                }
            }
        }
        Ok(())
    }

    /// A stack slot for an aggregate a call returns (see
    /// [`Self::entry_slot`]).
    pub(super) fn agg_slot(&mut self, ty: &TypeRef) -> Res<Operand> {
        let size = self.cx.layout.size_of(ty).map_err(|e| self.unsupported(e))?;
        let align = self.cx.layout.align_of(ty).map_err(|e| self.unsupported(e))?.max(1) as u32;
        let n = Operand::Const(Const::int(self.pint(), size as i64, self.dm()));
        self.entry_slot(InstKind::Alloca { size: n, align })
    }

    /// Places the stack slot `kind` first in the entry block, without a
    /// line (it is not a statement: gcov counts no line for it), so that a
    /// call in a loop does not allocate anew on every iteration.
    pub(super) fn entry_slot(&mut self, kind: InstKind) -> Res<Operand> {
        let inst = self.body.create_inst(kind, Loc::UNKNOWN);
        self.body.blocks[Body::ENTRY].insts.insert(0, inst);
        self.body.insts[inst].result.map(Operand::Value).ok_or_else(|| self.unsupported("a stack slot without a value"))
    }

    /// The width of `op`'s type if it is an integer width the IR does not
    /// have (its value then sits zero-extended in a wider IR integer).
    pub(super) fn odd(&self, op: &LOp) -> Option<u32> {
        odd_int_bits(&self.type_of_op(op))
    }

    /// `o`, an `n`-bit value in the container `ty`, with the bits above
    /// `n` cleared (restoring the zero-extended form after an operation
    /// that may carry into them).
    pub(super) fn mask_odd(&mut self, ty: Type, o: Operand, n: u32) -> Operand {
        let m = Operand::Const(Const { ty, bits: truncate(u64::MAX, n) });
        self.emit_value(InstKind::Bin { op: BinOp::And, ty, lhs: o, rhs: m })
    }

    /// `o`, an `n`-bit value in the container `ty`, sign-extended from its
    /// bit `n - 1` over the whole container (for signed operations).
    pub(super) fn sext_odd(&mut self, ty: Type, o: Operand, n: u32) -> Operand {
        let sh = Operand::Const(Const { ty, bits: u64::from(ty.bits(self.dm()) - n) });
        let up = self.emit_value(InstKind::Bin { op: BinOp::Shl, ty, lhs: o, rhs: sh });
        self.emit_value(InstKind::Bin { op: BinOp::AShr, ty, lhs: up, rhs: sh })
    }

    /// The pieces (byte offset, IR type) a load or store of `bytes` bytes
    /// is made of: the widest power-of-two widths first, as the bytes of
    /// an `i24`/`i48`/`i56` are those of its store size (3, 6, 7 bytes).
    pub(super) fn pieces(bytes: u64) -> Vec<(u64, Type)> {
        let mut v = Vec::new();
        let mut off = 0;
        for (w, t) in [(8, Type::I64), (4, Type::I32), (2, Type::I16), (1, Type::I8)] {
            if bytes - off >= w {
                v.push((off, t));
                off += w;
            }
        }
        v
    }

    /// Loads an `n`-bit integer of odd width from `ptr` into its container.
    pub(super) fn load_odd(&mut self, ptr: Operand, n: u32) -> Operand {
        let ty = container(n).unwrap_or(Type::I64);
        let mut acc: Option<Operand> = None;
        for (off, pt) in Self::pieces(u64::from(n.div_ceil(8))) {
            let at = self.ptr_add_const(ptr, off as i64);
            let piece = self.emit_value(InstKind::Load { ty: pt, ptr: at });
            let wide = self.int_cast(piece, ty, false);
            let shifted = if off == 0 {
                wide
            } else {
                let sh = Operand::Const(Const { ty, bits: 8 * off });
                self.emit_value(InstKind::Bin { op: BinOp::Shl, ty, lhs: wide, rhs: sh })
            };
            acc = Some(match acc {
                None => shifted,
                Some(a) => self.emit_value(InstKind::Bin { op: BinOp::Or, ty, lhs: a, rhs: shifted }),
            });
        }
        let v = acc.unwrap_or(Operand::Const(Const { ty, bits: 0 }));
        if n.is_multiple_of(8) {
            v
        } else {
            self.mask_odd(ty, v, n)
        }
    }

    /// Stores the `n`-bit integer `value` (in its container) to `ptr`.
    pub(super) fn store_odd(&mut self, ptr: Operand, value: Operand, n: u32) {
        let ty = self.operand_type(&value);
        for (off, pt) in Self::pieces(u64::from(n.div_ceil(8))) {
            let shifted = if off == 0 {
                value
            } else {
                let sh = Operand::Const(Const { ty, bits: 8 * off });
                self.emit_value(InstKind::Bin { op: BinOp::LShr, ty, lhs: value, rhs: sh })
            };
            let piece = self.int_cast(shifted, pt, false);
            let at = self.ptr_add_const(ptr, off as i64);
            self.emit(InstKind::Store { ty: pt, ptr: at, value: piece });
        }
    }

    pub(super) fn ptr_add_const(&mut self, base: Operand, off: i64) -> Operand {
        if off == 0 {
            return base;
        }
        let offset = Operand::Const(Const::int(self.pint(), off, self.dm()));
        self.emit_value(InstKind::PtrAdd { base, offset })
    }

    /// Converts an integer operand to the pointer-width integer type
    /// (sign-extending or truncating), as GEP indices are.
    pub(super) fn cast_to_pint(&mut self, o: Operand, signed: bool) -> Operand {
        let from = self.operand_type(&o);
        let to = self.pint();
        if let Operand::Const(c) = o {
            let v = if signed { sign_extend(c.bits, from.bits(self.dm())) } else { c.bits as i64 };
            return Operand::Const(Const::int(to, v, self.dm()));
        }
        self.int_cast(o, to, signed)
    }

    // ------------------------------------------------------------ instructions

    /// A cast from or to an integer of odd width (`from_odd`, `to_odd`):
    /// the value is sign-extended in its container first when the cast
    /// reads it as signed, converted between the containers, and masked
    /// to the target width.
    pub(super) fn cast_odd(
        &mut self,
        op: CastOp,
        arg: Operand,
        from: Type,
        to: Type,
        from_odd: Option<u32>,
        to_odd: Option<u32>,
    ) -> Res<Operand> {
        let mut x = arg;
        if let (Some(n), CastOp::SExt | CastOp::SiToFp) = (from_odd, op) {
            x = self.sext_odd(from, x, n);
        }
        let (fb, tb) = (from.bits(self.dm()), to.bits(self.dm()));
        let cop = match op {
            CastOp::Trunc | CastOp::ZExt | CastOp::SExt => match fb.cmp(&tb) {
                std::cmp::Ordering::Equal => None,
                std::cmp::Ordering::Less if op == CastOp::SExt => Some(CastOp::SExt),
                std::cmp::Ordering::Less => Some(CastOp::ZExt),
                std::cmp::Ordering::Greater => Some(CastOp::Trunc),
            },
            CastOp::PtrToInt | CastOp::IntToPtr | CastOp::SiToFp | CastOp::UiToFp => Some(op),
            other => {
                let n = from_odd.or(to_odd).unwrap_or(0);
                return Err(self.unsupported(format!("{other} of a {n}-bit integer")));
            }
        };
        if let Some(cop) = cop {
            x = self.emit_value(InstKind::Cast { op: cop, from, to, arg: x });
        }
        if let Some(m) = to_odd {
            x = self.mask_odd(to, x, m);
        }
        Ok(x)
    }
}
