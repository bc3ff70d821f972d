//! The pool of a pooled kernel (`BindingLayout::pooled`): one storage
//! buffer holding every array argument, each at a base aligned to
//! `weft_backend_hlsl::POOL_ALIGN`. An array passed for several parameters
//! is placed once and all of them get its base, so they alias in the pool
//! as they do in memory.

use super::VulkanError;
use weft_backend_hlsl::POOL_ALIGN;

/// Where each array of a launch lives in the pool.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct PoolPlan {
    /// Per array binding (in binding order): its byte offset in the pool.
    pub bases: Vec<u32>,
    /// Per distinct array, in order of first binding: the index of its
    /// first binding, its base and its length in bytes.
    pub regions: Vec<Region>,
    /// Bytes of the pool (at least 16).
    pub size: u64,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Region {
    pub first: usize,
    pub base: u64,
    pub len: u64,
}

/// Places the arrays `arrays` (per binding: an identity and the length in
/// bytes; equal identities are one array) one after the other. Fails when a
/// base does not fit the shader's 32-bit offsets.
pub(super) fn plan<K: PartialEq>(arrays: &[(K, usize)]) -> Result<PoolPlan, VulkanError> {
    let mut bases = Vec::with_capacity(arrays.len());
    let mut regions: Vec<Region> = Vec::new();
    let mut end = 0u64;
    for (i, (key, len)) in arrays.iter().enumerate() {
        if let Some(r) = regions.iter().find(|r| arrays[r.first].0 == *key) {
            bases.push(r.base as u32);
            continue;
        }
        let base = end.next_multiple_of(POOL_ALIGN as u64);
        let base32 = u32::try_from(base).map_err(|_| VulkanError::TooLarge {
            what: "the array pool".into(),
            size: base + *len as u64,
            limit: u32::MAX as u64,
        })?;
        bases.push(base32);
        regions.push(Region {
            first: i,
            base,
            len: *len as u64,
        });
        end = base + *len as u64;
    }
    Ok(PoolPlan {
        bases,
        regions,
        size: end.next_multiple_of(16).max(16),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_share_a_base_and_bases_are_aligned() {
        let p = plan(&[("a", 12), ("b", 5), ("a", 12), ("c", 0), ("d", 3)]).unwrap();
        assert_eq!(p.bases, [0, 16, 0, 32, 32]);
        assert_eq!(p.regions.len(), 4);
        assert_eq!(
            p.regions[1],
            Region {
                first: 1,
                base: 16,
                len: 5
            }
        );
        assert_eq!(p.size, 48);
        assert!(p.bases.iter().all(|b| b % POOL_ALIGN == 0));
        assert_eq!(plan::<u8>(&[]).unwrap().size, 16);
    }
}
