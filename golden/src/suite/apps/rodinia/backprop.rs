use super::*;

// ---- backprop ------------------------------------------------------------------------------

pub(in crate::suite::apps) const BACKPROP: Workload = Workload {
    name: "backprop",
    suite: "Rodinia 3.1",
    source: "rodinia/3.1/cuda/backprop (backprop_cuda.cu, backprop_cuda_kernel.cu, facetrain.c)",
    args: &[(
        "in",
        "65536",
        "input layer units, a multiple of 16 (AccelWattch's validation run: 65536)",
    )],
    input: "the source's own: weights and inputs from glibc rand() after srand(7)",
    small: "in=512",
    make: backprop,
};

/// The source's `HEIGHT`/`WIDTH` (a block is 16 x 16 threads), hidden and output units.
pub(super) const BP_TILE: u32 = 16;
pub(super) const BP_HIDDEN: usize = 16;
pub(super) const BP_OUT: usize = 1;
pub(super) const ETA: f64 = 0.3;
pub(super) const MOMENTUM: f64 = 0.3;

/// The network as `bpnn_create` and `load` make it.
pub(super) struct Net {
    pub(super) inputs: usize,
    /// Input units `0..=in` (unit 0, never read by the kernels, is 0 here: the source leaves
    /// it uninitialised).
    pub(super) input_units: Vec<f32>,
    /// `(in + 1) x (hid + 1)` input-to-hidden weights, row by row.
    pub(super) input_weights: Vec<f32>,
    /// `(hid + 1) x (out + 1)` hidden-to-output weights.
    pub(super) hidden_weights: Vec<f32>,
}

impl Net {
    fn new(inputs: usize) -> Net {
        let mut r = CRand::new(7);
        let input_weights = (0..(inputs + 1) * (BP_HIDDEN + 1))
            .map(|_| r.unit_f32())
            .collect();
        let hidden_weights = (0..(BP_HIDDEN + 1) * (BP_OUT + 1))
            .map(|_| r.unit_f32())
            .collect();
        let mut input_units = vec![0.0; inputs + 1];
        for u in &mut input_units[1..] {
            *u = r.unit_f32();
        }
        Net {
            inputs,
            input_units,
            input_weights,
            hidden_weights,
        }
    }

    /// The hidden layer's error (`hidden_delta`, units `0..=hid`) from the partial sums the
    /// first kernel left: the host's part of `bpnn_train_cuda` between the two kernels.
    fn hidden_delta(&self, partial: &[f32]) -> Vec<f32> {
        let blocks = self.inputs / BP_TILE as usize;
        let mut hidden = [0f32; BP_HIDDEN + 1];
        hidden[0] = 1.0;
        for j in 1..=BP_HIDDEN {
            let mut sum = 0f32;
            for k in 0..blocks {
                sum += partial[k * BP_HIDDEN + j - 1];
            }
            sum += self.input_weights[j];
            hidden[j] = (1.0 / (1.0 + (-f64::from(sum)).exp())) as f32;
        }
        // bpnn_layerforward (hidden to output), bpnn_output_error (target 0.1),
        // bpnn_hidden_error.
        let who = |j: usize, k: usize| self.hidden_weights[j * (BP_OUT + 1) + k];
        let mut delta_o = [0f32; BP_OUT + 1];
        for (k, d) in delta_o.iter_mut().enumerate().skip(1) {
            let sum: f32 = (0..=BP_HIDDEN).map(|j| who(j, k) * hidden[j]).sum();
            let o = (1.0 / (1.0 + (-f64::from(sum)).exp())) as f32;
            *d = (f64::from(o) * (1.0 - f64::from(o)) * (0.1 - f64::from(o))) as f32;
        }
        let mut delta_h = vec![0f32; BP_HIDDEN + 1];
        for j in 1..=BP_HIDDEN {
            let sum: f32 = (1..=BP_OUT).map(|k| delta_o[k] * who(j, k)).sum();
            let h = f64::from(hidden[j]);
            delta_h[j] = (h * (1.0 - h) * f64::from(sum)) as f32;
        }
        delta_h
    }
}

/// backprop's host program: the forward kernel, the host's error computation on its partial
/// sums, the weight-adjusting kernel.
pub(super) struct Backprop {
    pub(super) net: Net,
    pub(super) step: u8,
    /// input, input_hidden weights, partial sums, hidden delta, previous weights.
    pub(super) d: Vec<u64>,
    pub(super) delta: Vec<f32>,
}

pub(super) fn backprop(args: &Args, _seed: u64) -> Result<Box<dyn App>, SuiteError> {
    let inputs = args.int("in", 65536, 16, 1 << 22)?;
    args.multiple_of("in", inputs, BP_TILE.into(), "the source refuses others")?;
    BACKPROP_SASS.kernels()?;
    Ok(Box::new(Backprop {
        net: Net::new(inputs as usize),
        step: 0,
        d: Vec::new(),
        delta: Vec::new(),
    }))
}

impl App for Backprop {
    fn next(&mut self, mem: &mut DeviceMemory) -> Result<Option<Launch>, String> {
        let n = &self.net;
        let blocks = (n.inputs / BP_TILE as usize) as u32;
        let (grid, block) = ([1, blocks, 1], [BP_TILE, BP_TILE, 1]);
        let weights = ((n.inputs + 1) * (BP_HIDDEN + 1)) as u64 * 4;
        self.step += 1;
        match self.step {
            1 => {
                let input = mem.alloc((n.inputs as u64 + 1) * 4);
                let output_hidden = mem.alloc((BP_HIDDEN as u64 + 1) * 4);
                let input_hidden = mem.alloc(weights);
                let partial = mem.alloc(u64::from(blocks) * u64::from(BP_TILE) * 4);
                mem.write_f32(input, &n.input_units).map_err(fault)?;
                mem.write_f32(input_hidden, &n.input_weights)
                    .map_err(fault)?;
                self.d = vec![input, input_hidden, partial];
                let k = BACKPROP_SASS
                    .kernel("_Z22bpnn_layerforward_CUDAPfS_S_S_ii")
                    .map_err(fault)?;
                let params = vec![
                    Param::Ptr(input),
                    Param::Ptr(output_hidden),
                    Param::Ptr(input_hidden),
                    Param::Ptr(partial),
                    Param::I32(n.inputs as i32),
                    Param::I32(BP_HIDDEN as i32),
                ];
                Ok(Some(launch(&k, grid, block, params)))
            }
            2 => {
                let partial = mem
                    .read_f32(self.d[2], blocks as usize * BP_TILE as usize)
                    .map_err(fault)?;
                check_partial_sums(n, &partial)?;
                self.delta = n.hidden_delta(&partial);
                let delta = mem.alloc((BP_HIDDEN as u64 + 1) * 4);
                let prev = mem.alloc(weights);
                mem.write_f32(delta, &self.delta).map_err(fault)?;
                mem.write_f32(prev, &vec![0.0; (n.inputs + 1) * (BP_HIDDEN + 1)])
                    .map_err(fault)?;
                mem.write_f32(self.d[1], &n.input_weights).map_err(fault)?;
                self.d.extend([delta, prev]);
                let k = BACKPROP_SASS
                    .kernel("_Z24bpnn_adjust_weights_cudaPfiS_iS_S_")
                    .map_err(fault)?;
                let params = vec![
                    Param::Ptr(delta),
                    Param::I32(BP_HIDDEN as i32),
                    Param::Ptr(self.d[0]),
                    Param::I32(n.inputs as i32),
                    Param::Ptr(self.d[1]),
                    Param::Ptr(prev),
                ];
                Ok(Some(launch(&k, grid, block, params)))
            }
            _ => Ok(None),
        }
    }

    fn verify(&self, mem: &DeviceMemory) -> Result<(), String> {
        // bpnn_adjust_weights_cuda: w += ETA * delta[j] * ly[i] + MOMENTUM * oldw (oldw is 0),
        // in double, for rows 1..=in; row 0 by the first block's first row of threads.
        let n = &self.net;
        let cols = BP_HIDDEN + 1;
        let got = mem
            .read_f32(self.d[1], (n.inputs + 1) * cols)
            .map_err(fault)?;
        let mut want = n.input_weights.clone();
        for (i, row) in want.chunks_exact_mut(cols).enumerate() {
            let ly = if i == 0 {
                1.0
            } else {
                f64::from(n.input_units[i])
            };
            for (j, w) in row.iter_mut().enumerate().skip(1) {
                let dw = ETA * f64::from(self.delta[j]) * ly + MOMENTUM * 0.0;
                *w = (f64::from(*w) + dw) as f32;
            }
        }
        let got: Vec<f64> = got.into_iter().map(f64::from).collect();
        let want: Vec<f64> = want.into_iter().map(f64::from).collect();
        compare("input_weights", &got, &want, 1e-6)
    }
}

/// The forward kernel's partial sums against the host's: block `b`'s column `j` is the sum of
/// its 16 input rows' `weight * input`.
pub(super) fn check_partial_sums(n: &Net, partial: &[f32]) -> Result<(), String> {
    let cols = BP_HIDDEN + 1;
    for (b, sums) in partial.chunks_exact(BP_HIDDEN).enumerate() {
        for (j, &got) in sums.iter().enumerate() {
            let want: f64 = (0..BP_TILE as usize)
                .map(|r| {
                    let i = b * BP_TILE as usize + r + 1;
                    f64::from(n.input_weights[i * cols + j + 1]) * f64::from(n.input_units[i])
                })
                .sum();
            if !near(f64::from(got), want, 1e-5) {
                return Err(format!(
                    "hidden_partial_sum[{}] = {got}, the host computes {want}",
                    b * BP_HIDDEN + j
                ));
            }
        }
    }
    Ok(())
}
