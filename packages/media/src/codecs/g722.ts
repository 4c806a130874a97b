/**
 * ITU-T G.722 (09/2012) 64 kbit/s mode 1: sub-band ADPCM at 16 kHz, written from the
 * Recommendation's block descriptions.
 *
 *   16 kHz PCM ─► transmit QMF (§3.1, 24 taps) ─┬─► xL ─► lower ADPCM, 6 bits (§3.2–3.6) ─┐
 *                                               └─► xH ─► higher ADPCM, 2 bits (§3.7)   ─┴─► 1 octet
 *
 * Every octet carries one lower-band code (bits 0–5) and one higher-band code (bits 6–7), and
 * stands for two input samples. The arithmetic follows the Recommendation's fixed-point rules
 * (16-bit saturation, the same shifts) so that our bit stream decodes with any conforming decoder.
 * Scaling: 16-bit input, the QMF output is taken with a 2^-14 scale so that each sub-band is a
 * 15-bit signal (the range of the LIMIT block, §4.4.8); the receive QMF scales by 2^-11, which
 * makes the codec's overall gain one.
 */

/** Transmit and receive QMF coefficients, h0…h23 scaled by 2^13 (Table 3/G.722; symmetric). */
const QMF = [3, -11, -11, 53, 12, -156, 32, 362, -210, -805, 951, 3876, 3876, 951, -805, -210, 362, 32, -156, 12, 53, -11, -11, 3];

/** Lower-band quantizer decision levels, scaled so that `q6·detl >> 12` compares with |el| (Table 6). */
const Q6 = [
  0, 35, 72, 110, 150, 190, 233, 276, 323, 370, 422, 473, 530, 587, 650, 714, 786, 858, 940, 1023, 1121, 1219, 1339, 1458, 1612, 1765, 1980,
  2195, 2557, 2919,
];
/** Code for interval `mil` of a negative difference (Table 6, column ILN). */
const ILN = [0, 63, 62, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4];
/** Code for interval `mil` of a positive difference (Table 6, column ILP). */
const ILP = [0, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32];

/** Inverse quantizer output of the 6-bit code (Table 7, QQ6 scaled by 2^15 per detl step). */
const QM6 = [
  -136, -136, -136, -136, -24808, -21904, -19008, -16704, -14984, -13512, -12280, -11192, -10232, -9360, -8576, -7856, -7192, -6576, -6000,
  -5456, -4944, -4464, -4008, -3576, -3168, -2776, -2400, -2032, -1688, -1360, -1040, -728, 24808, 21904, 19008, 16704, 14984, 13512, 12280,
  11192, 10232, 9360, 8576, 7856, 7192, 6576, 6000, 5456, 4944, 4464, 4008, 3576, 3168, 2776, 2400, 2032, 1688, 1360, 1040, 728, 432, 136,
  -432, -136,
];
/** Inverse quantizer output of the code truncated to 4 bits, which feeds the predictor (Table 7, QQ4). */
const QM4 = [0, -20456, -12896, -8968, -6288, -4240, -2584, -1200, 20456, 12896, 8968, 6288, 4240, 2584, 1200, 0];
/** Log scale-factor multipliers of the lower band, indexed through RL42 (Table 8, WL). */
const WL = [-60, -30, 58, 172, 334, 538, 1198, 3042];
const RL42 = [0, 7, 6, 5, 4, 3, 2, 1, 7, 6, 5, 4, 3, 2, 1, 0];
/** 2^(i/32) scaled by 2^11: the antilog table of the scale factor (Table 9, ILB). */
const ILB = [
  2048, 2093, 2139, 2186, 2233, 2282, 2332, 2383, 2435, 2489, 2543, 2599, 2656, 2714, 2774, 2834, 2896, 2960, 3025, 3091, 3158, 3228, 3298,
  3371, 3444, 3520, 3597, 3676, 3756, 3838, 3922, 4008,
];

/** Higher band: codes for the two magnitudes of each sign, and their inverse quantizer (Table 4, 5). */
const IHN = [0, 1, 0];
const IHP = [0, 3, 2];
const QM2 = [-7408, -1616, 7408, 1616];
const WH = [0, -214, 798];
const RH2 = [2, 1, 2, 1];

/** 16-bit two's complement saturation, as every adder in the Recommendation applies. */
function sat(value: number): number {
  return Math.min(32767, Math.max(-32768, value));
}

/** Sign bit of a 16-bit value (0 for ≥ 0, −1 for < 0), the SG function of §4.4. */
function sg(value: number): number {
  return value < 0 ? -1 : 0;
}

/** SCALEL/SCALEH (§4.4.5): log-domain scale factor → linear step, with `shift` 8 (lower) or 10 (higher). */
function scale(nb: number, shift: number): number {
  const mantissa = ILB[(nb >> 6) & 31];
  const exponent = shift - (nb >> 11);
  const linear = exponent < 0 ? mantissa << -exponent : mantissa >> exponent;
  return linear << 2;
}

/**
 * The adaptive predictor one sub-band runs (BLOCK 4, §3.6): two poles, six zeros, with the
 * sign-sign coefficient updates UPPOL1, UPPOL2 and UPZERO.
 */
class BandPredictor {
  /** Pole coefficients a1, a2 (Q14). */
  a1 = 0;
  a2 = 0;
  /** Zero coefficients b1…b6 (Q14), index 0 unused. */
  readonly b = new Int32Array(7);
  /** Quantized differences d0…d6 (d0 the newest). */
  readonly d = new Int32Array(7);
  /** Reconstructed signal r1, r2 and partially reconstructed p1, p2. */
  r1 = 0;
  r2 = 0;
  p1 = 0;
  p2 = 0;
  /** The zero section's prediction and the full prediction for the next sample. */
  sz = 0;
  s = 0;

  /** Takes the quantized difference `dt` of this sample and predicts the next sample. */
  update(dt: number): void {
    const r0 = sat(this.s + dt);
    const p0 = sat(this.sz + dt);
    const sg0 = sg(p0);
    const sg1 = sg(this.p1);
    const sg2 = sg(this.p2);

    // UPPOL2: a2 leaks by 2^-7 and moves by 2^-7 towards sgn(p0·p2), against f(a1)·sgn(p0·p1).
    let f = sat(this.a1 << 2);
    f = sg0 === sg1 ? -f : f;
    if (f > 32767) f = 32767;
    let a2 = (sg0 === sg2 ? 128 : -128) + (f >> 7) + ((this.a2 * 32512) >> 15);
    a2 = Math.min(12288, Math.max(-12288, a2));

    // UPPOL1: a1 leaks by 2^-8 and moves by 3·2^-8; |a1| ≤ 1 − 2^-4 − a2 keeps the poles stable.
    let a1 = sat((sg0 === sg1 ? 192 : -192) + ((this.a1 * 32640) >> 15));
    const bound = sat(15360 - a2);
    if (a1 > bound) a1 = bound;
    else if (a1 < -bound) a1 = -bound;

    // UPZERO: each b leaks by 2^-8 and moves by 2^-7·sgn(d0·di) (no move when d0 = 0).
    const step = dt === 0 ? 0 : 128;
    const sgd = sg(dt);
    for (let i = 1; i <= 6; i += 1) {
      const move = sg(this.d[i]) === sgd ? step : -step;
      this.b[i] = sat(move + ((this.b[i] * 32640) >> 15));
    }

    // DELAYA: shift the histories.
    for (let i = 6; i > 0; i -= 1) this.d[i] = this.d[i - 1];
    this.d[1] = dt;
    this.r2 = this.r1;
    this.r1 = r0;
    this.p2 = this.p1;
    this.p1 = p0;
    this.a1 = a1;
    this.a2 = a2;

    // FILTEP and FILTEZ: the pole and zero sections' predictions of the next sample.
    const sp = sat(((this.a1 * sat(this.r1 + this.r1)) >> 15) + ((this.a2 * sat(this.r2 + this.r2)) >> 15));
    let sz = 0;
    for (let i = 1; i <= 6; i += 1) sz = sat(sz + ((this.b[i] * sat(this.d[i] + this.d[i])) >> 15));
    this.sz = sz;
    this.s = sat(sp + sz);
  }
}

/** Lower sub-band state shared by encoder and decoder (§3.2–3.6). */
class LowerBand {
  readonly predictor = new BandPredictor();
  nbl = 0;
  detl = 32;

  /** Inverse-quantizes the 4-bit truncation, adapts the step and the predictor (LOGSCL, SCALEL, BLOCK 4). */
  adapt(code: number): void {
    const code4 = code >> 2;
    const dlt = (this.detl * QM4[code4]) >> 15;
    let nbl = ((this.nbl * 127) >> 7) + WL[RL42[code4]];
    nbl = Math.min(18432, Math.max(0, nbl));
    this.nbl = nbl;
    this.detl = scale(nbl, 8);
    this.predictor.update(dlt);
  }
}

/** Higher sub-band state shared by encoder and decoder (§3.7). */
class HigherBand {
  readonly predictor = new BandPredictor();
  nbh = 0;
  deth = 8;

  /** The quantized difference of `code` at the current step. */
  difference(code: number): number {
    return (this.deth * QM2[code]) >> 15;
  }

  adapt(code: number, dh: number): void {
    let nbh = ((this.nbh * 127) >> 7) + WH[RH2[code]];
    nbh = Math.min(22528, Math.max(0, nbh));
    this.nbh = nbh;
    this.deth = scale(nbh, 10);
    this.predictor.update(dh);
  }
}

/** LIMIT (§4.4.8): the reconstructed sub-band signal stays within 15 bits. */
function limit(value: number): number {
  return Math.min(16383, Math.max(-16384, value));
}

/** A G.722 encoder: 16 kHz 16-bit PCM in, one octet per two samples out. Keeps state across calls. */
export class G722Encoder {
  /** The last 24 input samples, newest at index 0 (the transmit QMF's delay line). */
  readonly #history = new Int32Array(24);
  readonly #lower = new LowerBand();
  readonly #higher = new HigherBand();

  /** Encodes `pcm` (an even number of samples) into `out` (pcm.length / 2 octets). */
  encode(pcm: Int16Array, out: Uint8Array = new Uint8Array(pcm.length >> 1)): Uint8Array {
    if (pcm.length % 2 !== 0) throw new RangeError(`G.722 encodes sample pairs; got ${pcm.length} samples`);
    if (out.length < pcm.length >> 1) throw new RangeError(`G.722 output needs ${pcm.length >> 1} octets, has ${out.length}`);
    const history = this.#history;
    for (let j = 0; j < pcm.length; j += 2) {
      history.copyWithin(2, 0, 22);
      history[1] = pcm[j];
      history[0] = pcm[j + 1];
      // Transmit QMF (§3.1): xA over even taps, xB over odd taps; their sum is the low band and
      // their difference the high band, decimated by two.
      let even = 0;
      let odd = 0;
      for (let i = 0; i < 24; i += 2) {
        even += QMF[i] * history[i];
        odd += QMF[i + 1] * history[i + 1];
      }
      const xl = limit((even + odd) >> 14);
      const xh = limit((even - odd) >> 14);
      out[j >> 1] = (this.#encodeHigher(xh) << 6) | this.#encodeLower(xl);
    }
    return out;
  }

  /** SUBTRA and QUANTL (§3.2, §3.3): 6-bit code of the prediction error. */
  #encodeLower(xl: number): number {
    const band = this.#lower;
    const el = sat(xl - band.predictor.s);
    const magnitude = el >= 0 ? el : -(el + 1);
    let mil = 1;
    while (mil < 30 && magnitude >= (Q6[mil] * band.detl) >> 12) mil += 1;
    const code = el < 0 ? ILN[mil] : ILP[mil];
    band.adapt(code);
    return code;
  }

  /** SUBTRA and QUANTH (§3.7): 2-bit code of the prediction error. */
  #encodeHigher(xh: number): number {
    const band = this.#higher;
    const eh = sat(xh - band.predictor.s);
    const magnitude = eh >= 0 ? eh : -(eh + 1);
    const mih = magnitude >= (564 * band.deth) >> 12 ? 2 : 1;
    const code = eh < 0 ? IHN[mih] : IHP[mih];
    band.adapt(code, band.difference(code));
    return code;
  }
}

/** A G.722 decoder (64 kbit/s mode): one octet in, two 16 kHz samples out. Keeps state across calls. */
export class G722Decoder {
  readonly #lower = new LowerBand();
  readonly #higher = new HigherBand();
  /** Receive QMF delay lines of xd = rl − rh and xs = rl + rh, newest at index 0. */
  readonly #xd = new Int32Array(12);
  readonly #xs = new Int32Array(12);

  decode(payload: Uint8Array, out: Int16Array = new Int16Array(payload.length * 2)): Int16Array {
    if (out.length < payload.length * 2) throw new RangeError(`G.722 output needs ${payload.length * 2} samples, has ${out.length}`);
    for (let n = 0; n < payload.length; n += 1) {
      const octet = payload[n];
      const lowCode = octet & 0x3f;
      const highCode = octet >> 6;

      // Lower band (§4.2): the output uses the full 6-bit code, the predictor only its top 4 bits.
      const lower = this.#lower;
      const rl = limit(lower.predictor.s + ((lower.detl * QM6[lowCode]) >> 15));
      lower.adapt(lowCode);

      const higher = this.#higher;
      const dh = higher.difference(highCode);
      const rh = limit(higher.predictor.s + dh);
      higher.adapt(highCode, dh);

      // Receive QMF (§4.4): interpolate by two and recombine the bands.
      this.#xd.copyWithin(1, 0, 11);
      this.#xs.copyWithin(1, 0, 11);
      this.#xd[0] = rl - rh;
      this.#xs[0] = rl + rh;
      let first = 0;
      let second = 0;
      for (let i = 0; i < 12; i += 1) {
        first += QMF[2 * i] * this.#xd[i];
        second += QMF[2 * i + 1] * this.#xs[i];
      }
      out[2 * n] = sat(first >> 11);
      out[2 * n + 1] = sat(second >> 11);
    }
    return out;
  }
}
