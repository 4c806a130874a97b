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

# Conferences (ConfBridge), with the original's prompt names.
say conf-getpin "Please enter the conference pin number, followed by the pound key."
say conf-invalidpin "That pin is invalid for this conference."
say conf-onlyperson "You are currently the only person in this conference."
say conf-hasjoin "A participant has joined the conference."
say conf-hasleft "A participant has left the conference."
say conf-kicked "You have been removed from this conference."
say conf-leaderhasleft "The leader has left the conference."
say conf-waitforleader "The conference will begin when the leader arrives."
say conf-placeintoconf "You will now be placed into the conference."
say conf-locked "This conference is full or locked."
say conf-muted "You are now muted."
say conf-unmuted "You are no longer muted."
say conf-errormenu "Invalid menu option."
say conf-onlyone "There is currently one other participant in the conference."
say conf-thereare "There are currently"
say conf-otherinparty "other participants in the conference."
say conf-lockednow "The conference is now locked."
say conf-unlockednow "The conference is now unlocked."

# Voicemail (VoiceMail, VoiceMailMain), with the original's prompt names.
say vm-login "Please enter your mailbox number, followed by the pound key."
say vm-password "Password."
say vm-incorrect "Login incorrect."
say vm-youhave "You have"
say vm-INBOX "new"
say vm-Old "old"
say vm-message "message"
say vm-messages "messages"
say vm-no "no"
say vm-and "and"
say vm-first "First message."
say vm-nomore "No more messages."
say vm-received "Received"
say vm-from "From"
say vm-unknown-caller "an unknown caller"
say vm-instructions "To listen to your messages, press 1. For mailbox options, press 0. To exit, press pound."
say vm-msginstruct "To repeat, press 5. For the next message, press 6. For the previous message, press 4. To delete, press 7. To save, press 9. To exit, press pound."
say vm-deleted "Message deleted."
say vm-undeleted "Message undeleted."
say vm-savedto "Message saved to"
say vm-options "To record your unavailable message, press 1. Your busy message, press 2. Your name, press 3. Your temporary greeting, press 4. To change your password, press 5. To return to the main menu, press star."
say vm-newpassword "Please enter your new password, followed by the pound key."
say vm-reenterpassword "Please enter your new password again, followed by the pound key."
say vm-passchanged "Your password has been changed."
say vm-mismatch "The passwords you entered do not match."
say vm-rec-unv "After the tone, say your unavailable message, then press pound."
say vm-rec-busy "After the tone, say your busy message, then press pound."
say vm-rec-name "After the tone, say your name, then press pound."
say vm-rec-temp "After the tone, say your temporary greeting, then press pound."
say vm-msgsaved "Your greeting has been saved."
say vm-theperson "The person at extension"
say vm-isunavail "is unavailable."
say vm-isonphone "is on the phone."
say vm-mailboxfull "This mailbox is full."
say vm-goodbye "Goodbye."
say vm-Urgent "urgent"
say vm-extension "Please enter the extension to forward this message to, followed by the pound key."
say vm-msgforwarded "Your message has been forwarded."
say pbx-invalid "I'm sorry, that's not a valid extension. Please try again."

# Queues (Queue), with the original's prompt names.
say queue-youarenext "You are now first in line."
say queue-thereare "You are currently caller number"
say queue-callswaiting "waiting to be answered."
say queue-holdtime "The estimated hold time is"
say queue-minutes "minutes."
say queue-less-than "less than"
say queue-thankyou "Thank you for your patience."
say queue-periodic-announce "All representatives are currently busy. Please stay on the line."

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
days=(sunday monday tuesday wednesday thursday friday saturday)
for i in "${!days[@]}"; do say "digits/day-$i" "${days[$i]}"; done
months=(january february march april may june july august september october november december)
for i in "${!months[@]}"; do say "digits/mon-$i" "${months[$i]}"; done
say digits/today "today"
say digits/yesterday "yesterday"
say digits/at "at"
say digits/oclock "o'clock"
say digits/oh "oh"
say digits/a-m "A M"
say digits/p-m "P M"
for l in {a..z}; do say "letters/$l" "$l"; done
say letters/dash "dash"
say letters/dot "dot"
say letters/at "at"

mkdir -p "$out/silence"
for s in 1 2 5; do sox -n -r 8000 -b 16 -c 1 "$out/silence/$s.wav" trim 0 "$s"; done
# A 1 kHz beep of a quarter second, as used before recordings.
sox -n -r 8000 -b 16 -c 1 "$out/beep.wav" synth 0.25 sine 1000 vol 0.5
echo "prompts written to $out"
