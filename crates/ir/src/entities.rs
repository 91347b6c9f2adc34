//! The id types of the IR. Their `Display` is their textual spelling.

crate::entity_id!(
    /// A function of the program (defined or external).
    FuncId, "@f"
);
crate::entity_id!(
    /// A global object of the program.
    GlobalId, "@g"
);
crate::entity_id!(
    /// A basic block of a function.
    Block, "b"
);
crate::entity_id!(
    /// An SSA value of a function: a block parameter or an instruction result.
    Value, "v"
);
crate::entity_id!(
    /// An instruction of a function.
    Inst, "i"
);
crate::entity_id!(
    /// A source file of the program.
    FileId, "file"
);
