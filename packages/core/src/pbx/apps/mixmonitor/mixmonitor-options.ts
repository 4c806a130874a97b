/**
 * The options of MixMonitor(file.ext,options,command) as the original spells them:
 *
 *   a        append to the file instead of replacing it
 *   b        record only while the channel is in a bridge
 *   v(x)     volume of what the channel hears, -4..4
 *   V(x)     volume of what the channel says, -4..4
 *   W(x)     both volumes, -4..4
 *   r(file)  also record what the channel says into its own file
 *   t(file)  also record what the channel hears into its own file
 *   i(var)   store the monitor's id in a channel variable (for StopMixMonitor)
 *
 * A volume x > 0 multiplies the samples by x, x < 0 divides them by -x (the original's frame
 * volume adjustment); 0 leaves them as they are.
 */

export interface MixMonitorOptions {
  append: boolean;
  bridgedOnly: boolean;
  /** Gain factor applied to what the channel hears (1 = unchanged). */
  heardGain: number;
  /** Gain factor applied to what the channel says (1 = unchanged). */
  spokenGain: number;
  receivedFile?: string;
  transmittedFile?: string;
  idVariable?: string;
}

export class MixMonitorOptionError extends Error {}

/** The factor a volume adjustment stands for: 2 doubles, -2 halves, 0 and 1 change nothing. */
export function volumeFactor(adjustment: number): number {
  if (adjustment > 0) return adjustment;
  if (adjustment < 0) return 1 / -adjustment;
  return 1;
}

function parseVolume(option: string, text: string | undefined): number {
  const value = Number(text);
  if (text === undefined || text === '' || !Number.isInteger(value) || value < -4 || value > 4) {
    throw new MixMonitorOptionError(`${option}() needs a whole number from -4 to 4, not '${text ?? ''}'`);
  }
  return volumeFactor(value);
}

function requireArgument(option: string, text: string | undefined): string {
  if (text === undefined || text === '') throw new MixMonitorOptionError(`${option}() needs an argument`);
  return text;
}

/** Parses the option letters; an unknown letter or a bad argument is a MixMonitorOptionError. */
export function parseMixMonitorOptions(text: string): MixMonitorOptions {
  const options: MixMonitorOptions = { append: false, bridgedOnly: false, heardGain: 1, spokenGain: 1 };
  let i = 0;
  while (i < text.length) {
    const letter = text[i];
    i += 1;
    let argument: string | undefined;
    if (text[i] === '(') {
      const close = text.indexOf(')', i);
      if (close < 0) throw new MixMonitorOptionError(`option ${letter}( is not closed`);
      argument = text.slice(i + 1, close);
      i = close + 1;
    }
    switch (letter) {
      case 'a':
        options.append = true;
        break;
      case 'b':
        options.bridgedOnly = true;
        break;
      case 'v':
        options.heardGain = parseVolume('v', argument);
        break;
      case 'V':
        options.spokenGain = parseVolume('V', argument);
        break;
      case 'W': {
        const gain = parseVolume('W', argument);
        options.heardGain = gain;
        options.spokenGain = gain;
        break;
      }
      case 'r':
        options.receivedFile = requireArgument('r', argument);
        break;
      case 't':
        options.transmittedFile = requireArgument('t', argument);
        break;
      case 'i':
        options.idVariable = requireArgument('i', argument);
        break;
      default:
        throw new MixMonitorOptionError(`unknown MixMonitor option '${letter}'`);
    }
  }
  return options;
}
