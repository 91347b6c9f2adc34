//! The lattice interface every abstract domain of the analysis implements,
//! so the fixpoint engine ([`crate::fixpoint`]) can iterate any of them.

/// An abstract domain: a lattice with widening and narrowing.
///
/// `widen` must make every ascending chain finite (the engine applies it at
/// loop heads after a short delay); `narrow` must stay above its second
/// argument's concretization where that is sound, and the engine runs only
/// a bounded number of narrowing passes, so it need not terminate by
/// itself.
pub trait Domain: Clone + PartialEq + std::fmt::Debug {
    /// The element that describes no concrete state (unreachable).
    fn bottom() -> Self;
    /// The element that describes every concrete state.
    fn top() -> Self;
    /// Whether this is bottom.
    fn is_bottom(&self) -> bool;
    /// The least upper bound.
    fn join(&self, other: &Self) -> Self;
    /// Whether `self` describes no more states than `other`.
    fn leq(&self, other: &Self) -> bool;
    /// An upper bound of both that makes ascending chains finite
    /// (`self` is the previous iterate).
    fn widen(&self, other: &Self) -> Self;
    /// A refinement of `self` by the newer iterate `other`, used in the
    /// descending passes after a widened fixpoint.
    fn narrow(&self, other: &Self) -> Self;
}
