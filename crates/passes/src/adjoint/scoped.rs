//! A map from source values to generated values with scopes: entries made
//! inside a region of the generated function are undone when the region
//! is left (they name values not visible outside it).

use std::collections::HashMap;
use std::hash::Hash;
use weft_ir::Value;

pub(super) struct ScopedMap<K = Value> {
    map: HashMap<K, Value>,
    /// Each change: the key and what it held before.
    log: Vec<(K, Option<Value>)>,
}

impl<K> Default for ScopedMap<K> {
    fn default() -> Self {
        ScopedMap {
            map: HashMap::new(),
            log: Vec::new(),
        }
    }
}

/// A point to return to with [`ScopedMap::restore`].
#[derive(Copy, Clone)]
pub(super) struct Mark(usize);

impl<K: Copy + Eq + Hash> ScopedMap<K> {
    pub(super) fn get(&self, k: K) -> Option<Value> {
        self.map.get(&k).copied()
    }
    pub(super) fn set(&mut self, k: K, v: Value) {
        let old = self.map.insert(k, v);
        self.log.push((k, old));
    }
    pub(super) fn remove(&mut self, k: K) {
        let old = self.map.remove(&k);
        if old.is_some() {
            self.log.push((k, old));
        }
    }
    pub(super) fn mark(&self) -> Mark {
        Mark(self.log.len())
    }
    /// Undoes every change made since `m`.
    pub(super) fn restore(&mut self, m: Mark) {
        while self.log.len() > m.0 {
            let Some((k, old)) = self.log.pop() else {
                break;
            };
            match old {
                Some(v) => self.map.insert(k, v),
                None => self.map.remove(&k),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn restore_undoes_sets_and_removes_in_order() {
        let v = Value::from_u32;
        let mut m: ScopedMap = ScopedMap::default();
        m.set(v(1), v(10));
        let mark = m.mark();
        m.set(v(1), v(11));
        m.set(v(2), v(20));
        m.remove(v(1));
        assert_eq!(m.get(v(1)), None);
        m.restore(mark);
        assert_eq!(m.get(v(1)), Some(v(10)));
        assert_eq!(m.get(v(2)), None);
    }
}
