#!/usr/bin/env bash
# Regenerates the shipped English prompts in sounds/en from text with espeak-ng and sox.
# The committed files are this script's output: 8 kHz, 16-bit, mono WAV (what the media engine plays).
# Needs: apt-get install espeak-ng sox
set -euo pipefail
cd "$(dirname "$0")/.."
out=sounds/en
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v espeak-ng >/dev/null || { echo "espeak-ng is missing: apt-get install espeak-ng" >&2; exit 1; }
command -v sox >/dev/null || { echo "sox is missing: apt-get install sox" >&2; exit 1; }

say() { # say <id> <text>
  local id=$1 text=$2
  mkdir -p "$out/$(dirname "$id")"
  espeak-ng -v en-us -s 150 -w "$tmp/raw.wav" "$text"
  # Trim leading/trailing silence, normalise to -3 dBFS, resample to telephone rate.
  sox "$tmp/raw.wav" -r 8000 -b 16 -c 1 "$out/$id.wav" silence 1 0.02 0.5% reverse silence 1 0.02 0.5% reverse norm -3
}

say hello-world "Hello world."
say welcome "Welcome to Switchboard."
say goodbye "Goodbye."
say please-try-again "Please try again."
say demo-echotest "You are now talking to the echo test."
say demo-thanks "Thank you for calling. Goodbye."
say vm-intro "Please leave a message after the tone."

names=(zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty)
for i in "${!names[@]}"; do say "digits/$i" "${names[$i]}"; done
for t in 30:thirty 40:forty 50:fifty 60:sixty 70:seventy 80:eighty 90:ninety; do say "digits/${t%%:*}" "${t#*:}"; done
say digits/hundred "hundred"
say digits/thousand "thousand"
say digits/million "million"
say digits/billion "billion"
say digits/minus "minus"
say digits/star "star"
say digits/pound "pound"
for l in {a..z}; do say "letters/$l" "$l"; done
say letters/dash "dash"
say letters/dot "dot"
say letters/at "at"

mkdir -p "$out/silence"
for s in 1 2 5; do sox -n -r 8000 -b 16 -c 1 "$out/silence/$s.wav" trim 0 "$s"; done
# A 1 kHz beep of a quarter second, as used before recordings.
sox -n -r 8000 -b 16 -c 1 "$out/beep.wav" synth 0.25 sine 1000 vol 0.5
echo "prompts written to $out"
