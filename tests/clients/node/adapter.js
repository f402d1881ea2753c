#!/usr/bin/env node
// adapter.js - the node-rdkafka client adapter of the client matrix
// (tests/clients/client_matrix.py): a node-rdkafka producer or bucket
// consumer configured the way node-rdkafka users configure one (the object
// given to new Kafka.Producer / new Kafka.KafkaConsumer), speaking the
// adapter protocol. node-rdkafka comes from NODE_PATH (see prepare.sh).
//
//   node adapter.js produce BOOTSTRAP PLUGIN
//       stdin: one key a line ("-" = NULL key), value "v", topic orders;
//       after EOF: flush, then "delivered KEY PARTITION" or
//       "failed KEY ERROR" per delivery report (KEY "-" for a NULL key).
//   node adapter.js consume BOOTSTRAP PLUGIN GROUP BUCKET [NAME=VALUE ...]
//       "assigned P,P,..." (sorted partitions of orders; nothing after
//       "assigned " when it has none) when
//       the assignment changes, "record PARTITION KEY" per record, until
//       stdin closes; then disconnect and exit 0. NAME=VALUE entries are
//       added to the configuration object last (group.protocol=consumer).
//   node adapter.js version
//       "librdkafka X.Y.Z", the library node-rdkafka runs on.
//
// A client that cannot be created or connected prints "error TEXT" and
// exits 3. Usage errors exit 2; a disconnect that hangs exits 4.
//
// BP_NODE_REBALANCE_CB selects the consumer's rebalance handling:
//   unset, "" or 0   no rebalance_cb: librdkafka (and the plugin) assign;
//                    the assignment is read with consumer.assignments()
//                    every 200 ms;
//   1 or true        rebalance_cb: true (node-rdkafka assigns the list of
//                    the 'rebalance' event itself);
//   function or fn   rebalance_cb: a function calling this.assign() /
//                    this.unassign(), or this.incrementalAssign() /
//                    this.incrementalUnassign() when
//                    this.rebalanceProtocol() is 'COOPERATIVE' (the next
//                    generation protocol), as node-rdkafka's README shows.
// With a rebalance_cb the assignment printed is the list of each
// 'rebalance' event (the first one printed even when empty).
// BP_NODE_DEBUG=cgrp (any librdkafka debug list) adds debug to the
// consumer's configuration, last. Messages of librdkafka and the plugin
// ('event.log', 'event.error') go to stderr.
'use strict';

const readline = require('readline');

const TOPIC = 'orders';

function usage() {
  process.stderr.write('usage: node adapter.js produce BOOTSTRAP PLUGIN\n' +
    '       node adapter.js consume BOOTSTRAP PLUGIN GROUP BUCKET' +
    ' [NAME=VALUE ...]\n       node adapter.js version\n');
  process.exit(2);
}

function out(line) {
  // stdout is written synchronously for files and pipes on Linux.
  process.stdout.write(line + '\n');
}

function oneLine(text) {
  return String(text).replace(/\s*\n\s*/g, ' ');
}

function fail(err) {
  out('error ' + oneLine(err && err.message ? err.message : err));
  process.exit(3);
}

function keyText(key) {
  if (key === null || key === undefined) return '-';
  return Buffer.isBuffer(key) ? key.toString() : String(key);
}

let Kafka;
try {
  Kafka = require('node-rdkafka');
} catch (e) {
  fail('cannot load node-rdkafka (is NODE_PATH set? see prepare.sh): ' +
       e.message);
}

// Configuration shared by both roles, in the order users write it:
// plugin.library.paths before the bucket.priority.* properties it owns.
function baseConfig(bootstrap, plugin) {
  return {
    'bootstrap.servers': bootstrap,
    'plugin.library.paths': plugin,
    'bucket.priority.topic': TOPIC,
    'bucket.priority.buckets': 'Platinum, Gold',
    'bucket.priority.allocation': '70%, 30%',
  };
}

function logEvents(client) {
  client.on('event.log', (log) =>
    process.stderr.write(`log ${log.severity} ${log.fac}: ${log.message}\n`));
  client.on('event.error', (err) =>
    process.stderr.write(`kafka error: ${oneLine(err.message)}\n`));
}

function produce(bootstrap, plugin) {
  let producer;
  try {
    producer = new Kafka.Producer(Object.assign(baseConfig(bootstrap, plugin),
                                                {'dr_cb': true}));
  } catch (e) {
    fail(e);
  }
  logEvents(producer);

  const pending = new Map(); // opaque id -> key text, until its report
  const queued = [];         // keys read before the producer was ready
  let nextId = 0;
  let ready = false;
  let eof = false;
  let finishing = false;

  producer.on('delivery-report', (err, report) => {
    const id = report && report.opaque;
    const key = pending.has(id) ? pending.get(id) : keyText(report && report.key);
    pending.delete(id);
    if (err) out(`failed ${key} ${oneLine(err.message || err)}`);
    else out(`delivered ${key} ${report.partition}`);
    if (finishing && pending.size === 0) finish();
  });

  function send(line) {
    const id = nextId++;
    const key = line === '-' ? null : line;
    for (let attempt = 0; ; attempt++) {
      try {
        pending.set(id, line);
        producer.produce(TOPIC, null, Buffer.from('v'), key, null, id);
        return;
      } catch (e) {
        pending.delete(id);
        // A full local queue empties as reports are served: retry briefly.
        if (e.code === Kafka.CODES.ERRORS.ERR__QUEUE_FULL && attempt < 200) {
          producer.poll();
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
          continue;
        }
        out(`failed ${line} ${oneLine(e.message)}`);
        return;
      }
    }
  }

  let done = false;
  function finish() {
    if (done) return;
    done = true;
    clearTimeout(reportTimer);
    for (const key of pending.values())
      out(`failed ${key} no delivery report within 30 s`);
    pending.clear();
    const hang = setTimeout(() => {
      process.stderr.write('adapter: producer disconnect hangs\n');
      process.exit(4);
    }, 15000);
    producer.disconnect(() => { clearTimeout(hang); process.exit(0); });
  }

  let reportTimer;
  function afterInput() {
    if (!ready || !eof || finishing) return;
    finishing = true;
    reportTimer = setTimeout(finish, 30000);
    producer.flush(30000, (err) => {
      if (err) process.stderr.write(`flush: ${oneLine(err.message)}\n`);
      if (pending.size === 0) finish();
    });
  }

  const input = readline.createInterface({input: process.stdin});
  input.on('line', (raw) => {
    const line = raw.trim();
    if (line === '') return;
    if (ready) send(line);
    else queued.push(line);
  });
  input.on('close', () => { eof = true; afterInput(); });

  producer.setPollInterval(50);
  producer.connect({}, (err) => {
    if (err) fail(err);
    ready = true;
    queued.splice(0).forEach(send);
    afterInput();
  });
}

function consume(bootstrap, plugin, group, bucket, extra) {
  const mode = (process.env.BP_NODE_REBALANCE_CB || '').toLowerCase();
  const conf = Object.assign(baseConfig(bootstrap, plugin), {
    'group.id': group,
    'bucket.priority.bucket': bucket,
  });
  for (const property of extra) {
    const eq = property.indexOf('=');
    conf[eq < 0 ? property : property.slice(0, eq)] =
      eq < 0 ? '' : property.slice(eq + 1);
  }
  if (process.env.BP_NODE_DEBUG) conf.debug = process.env.BP_NODE_DEBUG;
  let withCb = true;
  if (mode === '1' || mode === 'true') {
    conf.rebalance_cb = true;
  } else if (mode === 'function' || mode === 'fn') {
    conf.rebalance_cb = function(err, assignment) {
      const cooperative = this.rebalanceProtocol() === 'COOPERATIVE';
      if (err.code === Kafka.CODES.ERRORS.ERR__ASSIGN_PARTITIONS) {
        if (cooperative) this.incrementalAssign(assignment);
        else this.assign(assignment);
      } else if (err.code === Kafka.CODES.ERRORS.ERR__REVOKE_PARTITIONS) {
        if (cooperative) this.incrementalUnassign(assignment);
        else this.unassign();
      } else {
        process.stderr.write(`rebalance: ${oneLine(err.message)}\n`);
      }
    };
  } else if (mode === '' || mode === '0') {
    withCb = false;
  } else {
    process.stderr.write(`adapter: BP_NODE_REBALANCE_CB=${mode}: expected` +
                         ' 0, 1 or function\n');
    process.exit(2);
  }

  let consumer;
  try {
    consumer = new Kafka.KafkaConsumer(conf, {'auto.offset.reset': 'earliest'});
  } catch (e) {
    fail(e);
  }
  logEvents(consumer);

  let last = withCb ? null : ''; // poll mode: the empty start is no change
  let shown = new Set();          // the partitions of the last line printed
  function show(partitions) {
    const now = partitions.filter((tp) => tp.topic === TOPIC)
      .map((tp) => tp.partition).sort((a, b) => a - b).join(',');
    if (now !== last) {
      out(`assigned ${now}`);
      last = now;
      shown = new Set(now ? now.split(',').map(Number) : []);
    }
  }

  // Cooperative rebalances hand over increments; eager ones the whole list.
  let owned = [];
  consumer.on('rebalance', (err, assignment) => {
    const cooperative = consumer.rebalanceProtocol() === 'COOPERATIVE';
    const code = err && err.code;
    const key = (tp) => `${tp.topic}/${tp.partition}`;
    if (code === Kafka.CODES.ERRORS.ERR__ASSIGN_PARTITIONS) {
      owned = cooperative ? owned.concat(assignment) : assignment.slice();
    } else if (code === Kafka.CODES.ERRORS.ERR__REVOKE_PARTITIONS) {
      const gone = new Set(assignment.map(key));
      owned = cooperative ? owned.filter((tp) => !gone.has(key(tp))) : [];
    } else {
      return;
    }
    show(owned);
  });
  consumer.on('rebalance.error', (e) =>
    process.stderr.write(`rebalance error: ${oneLine(e.message)}\n`));

  // Poll mode: a record from a partition not yet shown as assigned makes
  // the assignment be read first, so "assigned" always precedes the records
  // of a new assignment (the 200 ms timer alone may print it too late).
  function pollAssignment() {
    try {
      show(consumer.assignments());
    } catch (e) {
      process.stderr.write(`assignments: ${oneLine(e.message)}\n`);
    }
  }
  consumer.on('data', (m) => {
    if (!withCb && m.topic === TOPIC && !shown.has(m.partition))
      pollAssignment();
    out(`record ${m.partition} ${keyText(m.key)}`);
  });

  let stopping = false;
  let poller = null;
  function stop() {
    if (stopping) return;
    stopping = true;
    if (poller) clearInterval(poller);
    const hang = setTimeout(() => {
      process.stderr.write('adapter: consumer disconnect hangs\n');
      process.exit(4);
    }, 20000);
    const exit = () => { clearTimeout(hang); process.exit(0); };
    if (consumer.isConnected()) consumer.disconnect(exit);
    else exit();
  }

  consumer.connect({}, (err) => {
    if (err) fail(err);
    if (stopping) return;
    try {
      consumer.subscribe([TOPIC]);
    } catch (e) {
      fail(e);
    }
    consumer.consume();
    if (!withCb) {
      poller = setInterval(pollAssignment, 200);
    }
  });

  process.stdin.on('end', stop);
  process.stdin.on('close', stop);
  process.stdin.resume();
}

const argv = process.argv.slice(2);
if (argv[0] === 'produce' && argv.length === 3) produce(argv[1], argv[2]);
else if (argv[0] === 'consume' && argv.length >= 5)
  consume(argv[1], argv[2], argv[3], argv[4], argv.slice(5));
else if (argv[0] === 'version' && argv.length === 1)
  out(`librdkafka ${Kafka.librdkafkaVersion}`);
else usage();
