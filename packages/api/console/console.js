// The browser console: one small module, no framework. It reads snapshots over the control API
// with the user's credentials, then follows the events WebSocket (subscribeAll) and redraws the
// tables from its own copy of the state; no page reload. Actions (hang up, reload the dialplan)
// are REST calls: for a read-only user the buttons are hidden and the server would answer 403.

const base = location.pathname.replace(/\/console\/.*$/, '');
const state = {
  user: '',
  password: '',
  apiRoot: `${base}/ari`,
  readOnly: true,
  channels: new Map(),
  bridges: new Map(),
  endpoints: new Map(),
  contacts: [],
  deviceStates: new Map(),
  mailboxes: new Map(),
  cdrs: [],
  rtp: new Map(),
  codecs: {},
  events: [],
  applications: new Set(),
};
const MAX_EVENTS = 200;
const $ = (id) => document.getElementById(id);

function authHeader() {
  return `Basic ${btoa(`${state.user}:${state.password}`)}`;
}

async function api(method, path, root = state.apiRoot) {
  const response = await fetch(`${root}${path}`, { method, headers: { Authorization: authHeader() } });
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    throw new Error(body.message ?? `${method} ${path}: ${response.status}`);
  }
  return response.status === 204 ? undefined : response.json();
}

const consoleApi = (path) => api('GET', path, `${base}/console/api`);

/** The application a channel is in: `App(demo,…)`/`Stasis(demo,…)` as its current dialplan step. */
function applicationOf(channel) {
  const app = channel.dialplan?.app_name ?? '';
  if (app !== 'App' && app !== 'Stasis') return '';
  return (channel.dialplan.app_data ?? '').split(',')[0];
}

function since(wireDate) {
  const started = Date.parse(String(wireDate).replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));
  const seconds = Math.max(0, Math.floor((Date.now() - started) / 1000));
  const pad = (v) => String(v).padStart(2, '0');
  return `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor((seconds % 3600) / 60))}:${pad(seconds % 60)}`;
}

function cell(text, className) {
  const td = document.createElement('td');
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

function fill(tableId, rows, empty) {
  const body = $(tableId).querySelector('tbody');
  body.replaceChildren();
  if (rows.length === 0) {
    const tr = document.createElement('tr');
    const td = cell(empty, 'empty');
    td.colSpan = $(tableId).querySelectorAll('th').length;
    tr.append(td);
    body.append(tr);
    return;
  }
  for (const row of rows) body.append(row);
}

function row(cells, dataset = {}) {
  const tr = document.createElement('tr');
  for (const c of cells) tr.append(c instanceof HTMLElement ? c : cell(c));
  Object.assign(tr.dataset, dataset);
  return tr;
}

function hangupButton(channel) {
  const td = document.createElement('td');
  if (state.readOnly) return td;
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'act danger';
  button.textContent = 'Hang up';
  button.addEventListener('click', () => {
    api('DELETE', `/channels/${encodeURIComponent(channel.id)}`).catch((err) => note(`hang up failed: ${err.message}`));
  });
  td.append(button);
  return td;
}

function render() {
  const channels = [...state.channels.values()];
  $('call-count').textContent = `${channels.length} channel${channels.length === 1 ? '' : 's'}`;
  fill(
    'calls',
    channels.map((c) => {
      const rtp = state.rtp.get(c.id);
      const d = c.dialplan ?? {};
      const where = d.app_name ? `${d.exten}@${d.context} ${d.app_name}(${d.app_data ?? ''})` : `${d.exten ?? ''}@${d.context ?? ''}`;
      return row(
        [
          c.name,
          `${c.caller?.name ?? ''} <${c.caller?.number ?? ''}>`,
          c.connected?.number ? `${c.connected.name ?? ''} <${c.connected.number}>` : '',
          c.state,
          where,
          state.codecs[c.id] ?? '',
          since(c.creationtime),
          rtp ? `${rtp.rxploss}/${rtp.txploss}` : '',
          rtp?.rxjitter !== undefined ? `${(rtp.rxjitter * 1000).toFixed(1)} ms` : '',
          hangupButton(c),
        ],
        { channelId: c.id },
      );
    }),
    'No calls',
  );
  fill(
    'bridges',
    [...state.bridges.values()].map((b) =>
      row([
        b.id,
        `${b.bridge_type}/${b.bridge_class}`,
        b.channels.map((id) => state.channels.get(id)?.name ?? id).join(' ⇄ ') || '(empty)',
        since(b.creationtime),
      ]),
    ),
    'No bridges',
  );
  fill(
    'endpoints',
    [...state.endpoints.values()].map((e) => {
      const contacts = state.contacts.filter((c) => c.endpoint === e.resource);
      return row([
        `${e.technology}/${e.resource}`,
        e.state ?? 'unknown',
        String(e.channel_ids?.length ?? 0),
        contacts.map((c) => `${c.uri} (${c.expires_in}s)`).join(', ') || 'not registered',
      ]);
    }),
    'No endpoints',
  );
  fill(
    'device-states',
    [...state.deviceStates.values()].map((d) => row([d.name, d.state])),
    'No device states',
  );
  fill(
    'mailboxes',
    [...state.mailboxes.values()].map((m) => row([m.name, String(m.new_messages), String(m.old_messages)])),
    'No mailboxes',
  );
  fill(
    'cdrs',
    state.cdrs.map((r) =>
      row([String(r.start).replace('T', ' ').slice(0, 19), r.src, r.dst, r.channel, r.lastapp, String(r.billsec), r.disposition]),
    ),
    'No call detail records',
  );
  renderEvents();
}

function renderEvents() {
  const select = $('app-filter');
  for (const name of state.applications) {
    if (![...select.options].some((o) => o.value === name)) select.add(new Option(name, name));
  }
  const wanted = select.value;
  const list = $('events');
  list.replaceChildren();
  for (const entry of state.events) {
    if (wanted !== '' && entry.application !== wanted) continue;
    const li = document.createElement('li');
    li.textContent = `${entry.time} ${entry.type} ${entry.summary}`;
    list.append(li);
  }
}

function note(text) {
  $('status').textContent = text;
}

function remember(event) {
  const channel = event.channel;
  const application = channel ? applicationOf(channel) : (event.application ?? '');
  if (application) state.applications.add(application);
  const summary = channel
    ? `${channel.name} ${channel.state}`
    : (event.bridge?.id ?? event.endpoint?.resource ?? event.device_state?.name ?? '');
  state.events.unshift({ time: (event.timestamp ?? '').slice(11, 23), type: event.type, summary, application });
  state.events.length = Math.min(state.events.length, MAX_EVENTS);
}

function apply(event) {
  remember(event);
  switch (event.type) {
    case 'ChannelCreated':
    case 'ChannelStateChange':
    case 'ChannelDialplan':
    case 'ChannelConnectedLine':
    case 'ChannelCallerId':
    case 'ChannelVarset':
      if (event.channel) state.channels.set(event.channel.id, event.channel);
      break;
    case 'ChannelDestroyed':
      state.channels.delete(event.channel.id);
      state.rtp.delete(event.channel.id);
      // The CDR is written when the call ends.
      setTimeout(refreshCdrs, 1000);
      break;
    case 'BridgeCreated':
    case 'ChannelEnteredBridge':
    case 'ChannelLeftBridge':
    case 'BridgeMerged':
    case 'BridgeVideoSourceChanged':
      state.bridges.set(event.bridge.id, event.bridge);
      if (event.channel) state.channels.set(event.channel.id, event.channel);
      break;
    case 'BridgeDestroyed':
      state.bridges.delete(event.bridge.id);
      break;
    case 'EndpointStateChange':
    case 'PeerStatusChange':
      state.endpoints.set(`${event.endpoint.technology}/${event.endpoint.resource}`, event.endpoint);
      break;
    case 'ContactStatusChange':
      state.endpoints.set(`${event.endpoint.technology}/${event.endpoint.resource}`, event.endpoint);
      consoleApi('/contacts').then((list) => {
        state.contacts = list;
        render();
      }, ignore);
      break;
    case 'DeviceStateChanged':
      state.deviceStates.set(event.device_state.name, event.device_state);
      break;
    default:
      break;
  }
  render();
}

function ignore() {}

async function refreshCdrs() {
  state.cdrs = await consoleApi('/cdr?limit=10').catch(() => state.cdrs);
  render();
}

/** RTP loss and jitter of the answered channels, every few seconds (no event carries them). */
async function pollRtp() {
  if (state.channels.size > 0) state.codecs = await consoleApi('/codecs').catch(() => state.codecs);
  for (const channel of state.channels.values()) {
    if (channel.state !== 'Up') continue;
    try {
      state.rtp.set(channel.id, await api('GET', `/channels/${encodeURIComponent(channel.id)}/rtp_statistics`));
    } catch {
      state.rtp.delete(channel.id);
    }
  }
  render();
}

async function loadSnapshots() {
  const [channels, bridges, endpoints, deviceStates, mailboxes, applications, contacts] = await Promise.all([
    api('GET', '/channels'),
    api('GET', '/bridges'),
    api('GET', '/endpoints'),
    api('GET', '/deviceStates'),
    api('GET', '/mailboxes').catch(() => []),
    api('GET', '/applications'),
    consoleApi('/contacts'),
  ]);
  state.channels = new Map(channels.map((c) => [c.id, c]));
  state.bridges = new Map(bridges.map((b) => [b.id, b]));
  state.endpoints = new Map(endpoints.map((e) => [`${e.technology}/${e.resource}`, e]));
  state.deviceStates = new Map(deviceStates.map((d) => [d.name, d]));
  state.mailboxes = new Map(mailboxes.map((m) => [m.name, m]));
  state.contacts = contacts;
  for (const app of applications) if (!app.name.startsWith('console-')) state.applications.add(app.name);
  await refreshCdrs();
}

function connectEvents() {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const app = `console-${Math.random().toString(36).slice(2, 10)}`;
  const key = encodeURIComponent(`${state.user}:${state.password}`);
  const socket = new WebSocket(`${scheme}://${location.host}${state.apiRoot}/events?app=${app}&subscribeAll=true&api_key=${key}`);
  socket.addEventListener('open', async () => {
    note('live');
    document.body.dataset.live = 'yes';
    // Snapshots after the subscription, so nothing between the two is missed.
    await loadSnapshots().catch((err) => note(`load failed: ${err.message}`));
    render();
  });
  socket.addEventListener('message', (message) => apply(JSON.parse(message.data)));
  socket.addEventListener('close', () => {
    note('disconnected; retrying');
    document.body.dataset.live = 'no';
    setTimeout(connectEvents, 2000);
  });
}

// A read-only user may not open an events connection (that registers an application, which only a
// user who may act can serve), so for such a user the page follows the server by reading the same
// resources every two seconds; the event stream stays empty.
async function pollSnapshots() {
  try {
    await loadSnapshots();
    document.body.dataset.live = 'yes';
    render();
  } catch (err) {
    document.body.dataset.live = 'no';
    note(`load failed: ${err.message}`);
  }
}

async function signIn(user, password) {
  state.user = user;
  state.password = password;
  const me = await consoleApi('/whoami');
  state.readOnly = me.read_only;
  state.apiRoot = me.api_root;
  sessionStorage.setItem('switchboard-console', JSON.stringify({ user, password }));
  $('who').textContent = `${me.name}${me.read_only ? ' (read-only)' : ''}`;
  $('reload-dialplan').hidden = me.read_only;
  $('login').hidden = true;
  $('dashboard').hidden = false;
  if (me.read_only) {
    note('read-only: refreshed every 2 s (the event stream needs a user who may act)');
    await pollSnapshots();
    setInterval(pollSnapshots, 2000);
  } else {
    connectEvents();
  }
  setInterval(pollRtp, 3000);
  setInterval(render, 1000);
}

$('login').addEventListener('submit', (event) => {
  event.preventDefault();
  signIn($('login-user').value, $('login-password').value).catch((err) => {
    $('login-error').textContent = err.message;
  });
});

$('reload-dialplan').addEventListener('click', () => {
  api('PUT', '/system/modules/pbx_config').then(
    () => note('dialplan reloaded'),
    (err) => note(`reload failed: ${err.message}`),
  );
});

$('app-filter').addEventListener('change', renderEvents);

const saved = sessionStorage.getItem('switchboard-console');
if (saved) {
  const { user, password } = JSON.parse(saved);
  signIn(user, password).catch(() => sessionStorage.removeItem('switchboard-console'));
}
