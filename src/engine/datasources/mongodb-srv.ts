import { resolveSrv, resolveTxt } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { DatasourceDescriptor } from './datasource-descriptor.js';
import { shown, urlError } from './datasource-url-parts.js';

/*
 * `mongodb+srv://name/db`: the SRV records of `_mongodb._tcp.name` say where the servers are,
 * and its TXT record may add options (the MongoDB "Initial DNS Seedlist Discovery" spec). The
 * engine connects directly to one host, so the first target by priority and weight is used.
 */

export interface SrvRecord {
  readonly name: string;
  readonly port: number;
  readonly priority: number;
  readonly weight: number;
}

/** The two look-ups, as node:dns/promises makes them (a fake in tests). */
export interface SrvDns {
  resolveSrv(name: string): Promise<SrvRecord[]>;
  resolveTxt(name: string): Promise<string[][]>;
}

const SYSTEM_DNS: SrvDns = { resolveSrv, resolveTxt };

/** The only options a TXT record may set (the spec); replicaSet and loadBalanced mean nothing to one direct connection. */
const TXT_OPTIONS = new Set(['authSource', 'replicaSet', 'loadBalanced']);

/** What a name without TXT records answers: no options, not a failure. */
const NO_RECORDS = new Set(['ENODATA', 'ENOTFOUND']);

/**
 * The descriptor with the host and port of its SRV name's first target, and the TXT record's
 * authSource unless the URL gave one. Every target must lie under the SRV name's parent domain,
 * so a DNS answer cannot send the connection (and its credentials) to a domain the URL did not name.
 */
export async function resolveMongoSrv(descriptor: DatasourceDescriptor, dns: SrvDns = SYSTEM_DNS): Promise<DatasourceDescriptor> {
  if (descriptor.type !== 'MONGODB') throw urlError('only a MongoDB datasource has an SRV name');
  if (descriptor.port !== undefined) throw urlError('a mongodb+srv:// URL takes no port (the SRV records give it)');
  const host = dnsName(descriptor.host);
  const labels = host.split('.');
  if (isIP(host) !== 0 || labels.length < 3 || labels.includes('')) {
    throw urlError(`the SRV name ${shown(host)} must be a DNS name of at least three labels (cluster.example.com)`);
  }
  const parent = labels.slice(1).join('.');
  const srvName = `_mongodb._tcp.${host}`;
  const [records, txtOptions] = await Promise.all([lookUp(srvName, () => dns.resolveSrv(srvName)), optionsOfTxt(host, dns)]);
  if (records.length === 0) throw urlError(`${srvName} has no SRV records`);
  for (const record of records) {
    if (!dnsName(record.name).endsWith(`.${parent}`))
      throw urlError(`SRV target ${shown(record.name)} of ${srvName} is not under ${parent}`);
  }
  const first = [...records].sort((a, b) => a.priority - b.priority || b.weight - a.weight)[0] as SrvRecord;
  if (!Number.isInteger(first.port) || first.port < 1 || first.port > 65_535)
    throw urlError(`SRV target of ${srvName} has port ${first.port}`);
  const metadata = descriptor.metadata ?? {};
  const authSource = metadata.authSource ?? txtOptions.get('authSource');
  return {
    ...descriptor,
    host: dnsName(first.name),
    port: first.port,
    ...(authSource === undefined ? {} : { metadata: { ...metadata, authSource } }),
  };
}

/** The TXT record's options: at most one record, only the options the spec allows, each once and with a value. */
async function optionsOfTxt(host: string, dns: SrvDns): Promise<Map<string, string>> {
  const records = await lookUp(host, () => dns.resolveTxt(host), []);
  if (records.length === 0) return new Map();
  if (records.length > 1) throw urlError(`${host} has ${records.length} TXT records; at most one is allowed`);
  const options = new Map<string, string>();
  for (const [name, value] of new URLSearchParams((records[0] as string[]).join(''))) {
    if (!TXT_OPTIONS.has(name)) throw urlError(`the TXT record of ${host} may set only ${[...TXT_OPTIONS].join(', ')}, not ${shown(name)}`);
    if (value === '' || options.has(name)) throw urlError(`the TXT record of ${host} gives ${name} ${value === '' ? 'no value' : 'twice'}`);
    options.set(name, value);
  }
  return options;
}

/**
 * A look-up whose failure names the DNS name and code (ENOTFOUND, ETIMEOUT), nothing more. With
 * `noRecords`, a name without such records (ENODATA, ENOTFOUND) answers that instead of failing.
 */
async function lookUp<T>(name: string, query: () => Promise<T>, noRecords?: T): Promise<T> {
  try {
    return await query();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (noRecords !== undefined && typeof code === 'string' && NO_RECORDS.has(code)) return noRecords;
    throw urlError(`cannot look up ${name}: ${typeof code === 'string' ? code : 'DNS failure'}`);
  }
}

function dnsName(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, '');
}
