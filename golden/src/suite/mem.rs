//! The device's global memory as the host program and the kernels see it: the allocations
//! the host made (`cudaMalloc`), each a byte array at its device address.
//!
//! Addresses follow the CUDA allocator's habits closely enough for the caches: allocations start
//! at [`HEAP_BASE`], each at the next multiple of [`SMALL_ALIGN`] after the previous one (as the
//! driver packs small allocations), an allocation of [`LARGE`] bytes or more at the next multiple
//! of [`LARGE`] (as it maps large ones on their own 2 MiB pages).

/// Where the first allocation starts (a real GPU's addresses are about this high).
pub const HEAP_BASE: u64 = 0x7f00_0000_0000;
/// The alignment of every allocation.
pub const SMALL_ALIGN: u64 = 512;
/// The size from which an allocation starts on its own 2 MiB page.
pub const LARGE: u64 = 2 << 20;

/// An access outside every allocation: its address and width.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("access of {bytes} bytes at {addr:#x} lies outside every allocation")]
pub struct Fault {
    pub addr: u64,
    pub bytes: usize,
}

#[derive(Debug, Clone)]
struct Alloc {
    base: u64,
    data: Vec<u8>,
}

/// The allocations, in address order, and the host's copies into them not yet taken.
#[derive(Debug, Clone, Default)]
pub struct DeviceMemory {
    allocs: Vec<Alloc>,
    copies: Vec<(u64, u64)>,
    /// The host's writes to `__constant__` variables (`cudaMemcpyToSymbol`), by name, in order.
    symbols: Vec<(String, Vec<u8>)>,
    /// The module's `__device__` variables the host program allocated: name, address.
    device_vars: Vec<(String, u64)>,
}

impl DeviceMemory {
    /// A new allocation of `bytes` zero bytes; its device address.
    pub fn alloc(&mut self, bytes: u64) -> u64 {
        let end = self
            .allocs
            .last()
            .map_or(HEAP_BASE, |a| a.base + a.data.len() as u64);
        let align = if bytes >= LARGE { LARGE } else { SMALL_ALIGN };
        let base = end.next_multiple_of(align);
        self.allocs.push(Alloc {
            base,
            data: vec![0; usize::try_from(bytes).expect("an allocation that fits in memory")],
        });
        base
    }

    /// The allocation holding `[addr, addr + bytes)`, and the offset of `addr` in it.
    fn find(&self, addr: u64, bytes: usize) -> Result<(usize, usize), Fault> {
        let fault = Fault { addr, bytes };
        let i = self.allocs.partition_point(|a| a.base <= addr);
        let a = i
            .checked_sub(1)
            .map(|i| (i, &self.allocs[i]))
            .ok_or(fault.clone())?;
        let off = usize::try_from(addr - a.1.base).map_err(|_| fault.clone())?;
        if off + bytes > a.1.data.len() {
            return Err(fault);
        }
        Ok((a.0, off))
    }

    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        let (i, off) = self.find(addr, out.len())?;
        out.copy_from_slice(&self.allocs[i].data[off..off + out.len()]);
        Ok(())
    }

    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Fault> {
        let (i, off) = self.find(addr, data.len())?;
        self.allocs[i].data[off..off + data.len()].copy_from_slice(data);
        Ok(())
    }

    /// The host's copy of `bytes` to `addr` (`cudaMemcpy` to the device), kept for
    /// [`DeviceMemory::take_copies`].
    pub fn copy_in(&mut self, addr: u64, bytes: &[u8]) -> Result<(), Fault> {
        self.write(addr, bytes)?;
        self.copies.push((addr, bytes.len() as u64));
        Ok(())
    }

    /// The host's copies since the last call, as (address, bytes), in order.
    pub fn take_copies(&mut self) -> Vec<(u64, u64)> {
        std::mem::take(&mut self.copies)
    }

    /// Copy `values` (little-endian) to `addr` on: the host's `cudaMemcpy` of an array.
    pub fn write_f32(&mut self, addr: u64, values: &[f32]) -> Result<(), Fault> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.copy_in(addr, &bytes)
    }

    pub fn write_f64(&mut self, addr: u64, values: &[f64]) -> Result<(), Fault> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.copy_in(addr, &bytes)
    }

    pub fn write_u32(&mut self, addr: u64, values: &[u32]) -> Result<(), Fault> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.copy_in(addr, &bytes)
    }

    /// `n` values from `addr` on: the host's copy back.
    pub fn read_f32(&self, addr: u64, n: usize) -> Result<Vec<f32>, Fault> {
        let mut b = vec![0; n * 4];
        self.read(addr, &mut b)?;
        Ok(b.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }

    pub fn read_f64(&self, addr: u64, n: usize) -> Result<Vec<f64>, Fault> {
        let mut b = vec![0; n * 8];
        self.read(addr, &mut b)?;
        Ok(b.chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect())
    }

    pub fn read_u32(&self, addr: u64, n: usize) -> Result<Vec<u32>, Fault> {
        let mut b = vec![0; n * 4];
        self.read(addr, &mut b)?;
        Ok(b.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }

    /// The host's `cudaMemcpyToSymbol(name, bytes)`: the module's `__constant__` variable
    /// `name` holds `bytes` from its start on (in every later launch).
    pub fn write_symbol(&mut self, name: &str, bytes: &[u8]) {
        self.symbols.retain(|s| s.0 != name);
        self.symbols.push((name.to_string(), bytes.to_vec()));
    }

    /// The host's writes to `__constant__` variables: (name, bytes).
    pub fn symbol_writes(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.symbols.iter().map(|(n, b)| (n.as_str(), b.as_slice()))
    }

    /// The module's `__device__` variable `name` of `bytes` bytes, allocated (zero) as the
    /// driver does when it loads the module: its address, which every later launch of a kernel
    /// addressing it finds in constant bank 4 (`cudaMemcpyFromSymbol` is a read from it).
    pub fn device_var(&mut self, name: &str, bytes: u64) -> u64 {
        let addr = self.alloc(bytes);
        self.device_vars.retain(|v| v.0 != name);
        self.device_vars.push((name.to_string(), addr));
        addr
    }

    /// The address of `__device__` variable `name`, if the host program allocated it.
    pub fn device_address(&self, name: &str) -> Option<u64> {
        self.device_vars.iter().find(|v| v.0 == name).map(|v| v.1)
    }

    /// Bytes allocated in all.
    pub fn allocated(&self) -> u64 {
        self.allocs.iter().map(|a| a.data.len() as u64).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_aligned_apart_and_bounded() {
        let mut m = DeviceMemory::default();
        let a = m.alloc(100);
        let b = m.alloc(LARGE);
        let c = m.alloc(8);
        assert_eq!(a, HEAP_BASE);
        assert_eq!(b % LARGE, 0);
        assert!(b >= a + 100);
        assert_eq!(c, b + LARGE);
        m.write_u32(a + 96, &[7]).unwrap();
        assert_eq!(m.read_u32(a + 96, 1).unwrap(), vec![7]);
        // One byte past the end, and the gap between allocations, fault.
        assert_eq!(
            m.write_u32(a + 97, &[1]),
            Err(Fault {
                addr: a + 97,
                bytes: 4
            })
        );
        assert!(m.read_u32(a + 200, 1).is_err());
        assert!(m.read_u32(HEAP_BASE - 4, 1).is_err());
    }
}
