// A browser phone for the WebRTC end-to-end test: SIP.js over WebSocket, its microphone the fake
// capture file Chromium is started with, and what it hears measured with the Web Audio API.
// The test drives it through window.phone.
import { Invitation, Inviter, Registerer, RegistererState, SessionState, UserAgent } from '/sip.js/index.js';

const state = document.getElementById('state');
let userAgent;
let session;
let analyser;
let audioContext;
const events = [];

function note(text) {
  events.push(text);
  state.textContent = text;
}

const sessionOptions = { sessionDescriptionHandlerOptions: { constraints: { audio: true, video: false } } };
// With video: Chromium's fake camera (a moving test pattern) as the video source.
const videoSessionOptions = { sessionDescriptionHandlerOptions: { constraints: { audio: true, video: true } } };

/** What the far end sends: played (muted) by an audio element, which Chromium needs before Web Audio gets remote samples. */
function listen(current) {
  const stream = current.sessionDescriptionHandler.remoteMediaStream;
  const element = new Audio();
  element.muted = true;
  element.srcObject = stream;
  element.play().catch((error) => note(`play failed: ${error}`));
  audioContext = new AudioContext({ sampleRate: 48000 });
  analyser = audioContext.createAnalyser();
  analyser.fftSize = 8192;
  analyser.smoothingTimeConstant = 0;
  audioContext.createMediaStreamSource(stream).connect(analyser);
  return audioContext.resume();
}

function follow(current) {
  session = current;
  return new Promise((resolve, reject) => {
    current.stateChange.addListener((next) => {
      note(`session ${next}`);
      if (next === SessionState.Established) listen(current).then(resolve, reject);
      if (next === SessionState.Terminated) reject(new Error('the call ended before it was established'));
    });
  });
}

let incoming;

window.phone = {
  events,
  /** Whether an incoming call is answered with the camera too. */
  answerWithVideo: false,
  async register({ server, user, password, domain }) {
    userAgent = new UserAgent({
      uri: UserAgent.makeURI(`sip:${user}@${domain}`),
      transportOptions: { server },
      authorizationUsername: user,
      authorizationPassword: password,
      logLevel: 'warn',
      sessionDescriptionHandlerFactoryOptions: { peerConnectionConfiguration: { iceServers: [] }, iceGatheringTimeout: 1000 },
      delegate: {
        onInvite(invitation) {
          note('incoming call');
          incoming = follow(invitation);
          invitation.accept(window.phone.answerWithVideo ? videoSessionOptions : sessionOptions);
        },
      },
    });
    await userAgent.start();
    const registerer = new Registerer(userAgent);
    const registered = new Promise((resolve) => {
      registerer.stateChange.addListener((next) => {
        if (next === RegistererState.Registered) resolve();
      });
    });
    await registerer.register();
    await registered;
    note('registered');
  },
  async call(target, video = false) {
    const inviter = new Inviter(userAgent, UserAgent.makeURI(target), video ? videoSessionOptions : sessionOptions);
    const established = follow(inviter);
    await inviter.invite();
    await established;
  },
  /** Resolves once a call that came in is established. */
  async answered() {
    while (incoming === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
    await incoming;
  },
  /** RMS of the last analyser window (full scale 1). */
  level() {
    const samples = new Float32Array(analyser.fftSize);
    analyser.getFloatTimeDomainData(samples);
    let sum = 0;
    for (const s of samples) sum += s * s;
    return Math.sqrt(sum / samples.length);
  },
  /** The frequency of the analyser's strongest bin, Hz. */
  peak() {
    const bins = new Float32Array(analyser.frequencyBinCount);
    analyser.getFloatFrequencyData(bins);
    let best = 0;
    for (let i = 1; i < bins.length; i++) if (bins[i] > bins[best]) best = i;
    return (best * audioContext.sampleRate) / analyser.fftSize;
  },
  /** Sends digits as RFC 4733 telephone-events (RTCDTMFSender); false when the call has none. */
  dtmf(tones) {
    return session.sessionDescriptionHandler.sendDtmf(tones, { duration: 160, interToneGap: 100 });
  },
  /** The remote SDP (the answer or offer the server sent) and our local one. */
  descriptions() {
    const pc = session.sessionDescriptionHandler.peerConnection;
    return { local: pc.localDescription?.sdp ?? '', remote: pc.remoteDescription?.sdp ?? '' };
  },
  /** What the peer connection's inbound and outbound RTP statistics say. */
  async rtpStats() {
    const report = await session.sessionDescriptionHandler.peerConnection.getStats();
    const out = {};
    report.forEach((entry) => {
      if (entry.type === 'inbound-rtp' || entry.type === 'outbound-rtp') out[entry.type] = entry;
      if (entry.type === 'transport') out.transport = entry;
    });
    return out;
  },
  /** The video inbound-rtp and outbound-rtp statistics (frames decoded and sent, keyframe requests). */
  async videoStats() {
    const report = await session.sessionDescriptionHandler.peerConnection.getStats();
    const out = {};
    report.forEach((entry) => {
      if ((entry.type === 'inbound-rtp' || entry.type === 'outbound-rtp') && entry.kind === 'video') out[entry.type] = entry;
    });
    return out;
  },
  async hangup() {
    if (session instanceof Invitation || session.state === SessionState.Established) await session.bye();
    else await session.cancel();
  },
};
note('ready');
