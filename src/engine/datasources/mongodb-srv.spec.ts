import { describe, expect, it } from 'vitest';
import { InvalidDatasourceError } from '../errors/engine-errors.js';
import type { DatasourceDescriptor } from './datasource-descriptor.js';
import { parseDatasourceUrl } from './datasource-url.js';
import { resolveMongoSrv, type SrvDns, type SrvRecord } from './mongodb-srv.js';

const SRV_NAME = '_mongodb._tcp.cluster0.example.net';

const record = (name: string, port = 27017, priority = 0, weight = 0): SrvRecord => ({ name, port, priority, weight });

const dnsError = (code: string): Error => Object.assign(new Error(`query${code} ${SRV_NAME}`), { code });

/** A resolver with fixed answers; it records the names asked for. */
function fakeDns(answers: { srv?: SrvRecord[] | Error; txt?: string[][] | Error }): SrvDns & { asked: string[] } {
  const asked: string[] = [];
  const answer = async <T>(name: string, value: T | Error | undefined, none: T): Promise<T> => {
    asked.push(name);
    if (value instanceof Error) throw value;
    return value ?? none;
  };
  return {
    asked,
    resolveSrv: (name) => answer(name, answers.srv, []),
    resolveTxt: (name) => answer(name, answers.txt, []),
  };
}

const descriptor = (query = ''): DatasourceDescriptor =>
  parseDatasourceUrl(`mongodb+srv://alice:Tr0ub4dor@cluster0.example.net/app${query}`).descriptor;

async function refusal(promise: Promise<unknown>): Promise<InvalidDatasourceError> {
  const error = await promise.then(
    () => undefined,
    (rejected: unknown) => rejected,
  );
  expect(error).toBeInstanceOf(InvalidDatasourceError);
  expect((error as Error).message).not.toContain('Tr0ub4dor');
  return error as InvalidDatasourceError;
}

describe('resolveMongoSrv', () => {
  it('asks for the SRV records of _mongodb._tcp.<host> and the TXT record of the host', async () => {
    const dns = fakeDns({ srv: [record('shard-00.example.net')] });
    await resolveMongoSrv(descriptor(), dns);
    expect(dns.asked.sort()).toEqual([SRV_NAME, 'cluster0.example.net']);
  });

  it('connects to the target first by priority, then by the highest weight, keeping the rest of the descriptor', async () => {
    const dns = fakeDns({
      srv: [record('c.example.net', 27019, 2, 90), record('a.example.net', 27017, 1, 10), record('b.example.net', 27018, 1, 50)],
    });
    expect(await resolveMongoSrv(descriptor(), dns)).toEqual({ ...descriptor(), host: 'b.example.net', port: 27018 });
  });

  it('drops the trailing dot of a target and ignores the case of names', async () => {
    const dns = fakeDns({ srv: [record('Shard-00.EXAMPLE.net.', 27017)] });
    expect(await resolveMongoSrv(descriptor(), dns)).toMatchObject({ host: 'shard-00.example.net', port: 27017 });
  });

  it('takes authSource from the TXT record', async () => {
    const dns = fakeDns({ srv: [record('shard-00.example.net')], txt: [['authSource=admin&replicaSet=atlas-1']] });
    expect((await resolveMongoSrv(descriptor(), dns)).metadata).toEqual({ authSource: 'admin' });
  });

  it('joins the strings of a TXT record and accepts loadBalanced in it', async () => {
    const dns = fakeDns({ srv: [record('shard-00.example.net')], txt: [['authSource=adm', 'in&loadBalanced=false']] });
    expect((await resolveMongoSrv(descriptor(), dns)).metadata).toEqual({ authSource: 'admin' });
  });

  it('lets the URL authSource win over the TXT record', async () => {
    const dns = fakeDns({ srv: [record('shard-00.example.net')], txt: [['authSource=admin']] });
    expect((await resolveMongoSrv(descriptor('?authSource=users'), dns)).metadata).toEqual({ authSource: 'users' });
  });

  it('works without a TXT record (ENODATA or ENOTFOUND)', async () => {
    for (const code of ['ENODATA', 'ENOTFOUND']) {
      const dns = fakeDns({ srv: [record('shard-00.example.net')], txt: dnsError(code) });
      expect((await resolveMongoSrv(descriptor(), dns)).metadata).toBeUndefined();
    }
  });

  it('refuses a TXT option other than authSource, replicaSet and loadBalanced', async () => {
    const dns = fakeDns({ srv: [record('shard-00.example.net')], txt: [['authSource=admin&tls=false']] });
    expect((await refusal(resolveMongoSrv(descriptor(), dns))).message).toContain(
      'may set only authSource, replicaSet, loadBalanced, not "tls"',
    );
  });

  it('refuses more than one TXT record', async () => {
    const dns = fakeDns({ srv: [record('shard-00.example.net')], txt: [['authSource=admin'], ['replicaSet=rs0']] });
    expect((await refusal(resolveMongoSrv(descriptor(), dns))).message).toContain('has 2 TXT records; at most one');
  });

  it('refuses a target outside the parent domain of the SRV name', async () => {
    for (const target of ['shard-00.evil.net', 'shard-00.notexample.net', 'example.net']) {
      const dns = fakeDns({ srv: [record('shard-00.example.net'), record(target)] });
      expect((await refusal(resolveMongoSrv(descriptor(), dns))).message).toContain('is not under example.net');
    }
  });

  it('refuses an SRV name of fewer than three labels, or an IP address', async () => {
    const dns = fakeDns({ srv: [record('shard-00.example.net')] });
    for (const host of ['example.net', '10.0.0.12']) {
      const error = await refusal(resolveMongoSrv({ ...descriptor(), host }, dns));
      expect(error.message).toContain('must be a DNS name of at least three labels');
    }
    expect(dns.asked).toEqual([]);
  });

  it('refuses a descriptor with a port, or of another engine', async () => {
    const dns = fakeDns({ srv: [record('shard-00.example.net')] });
    expect((await refusal(resolveMongoSrv({ ...descriptor(), port: 27017 }, dns))).message).toContain('takes no port');
    expect((await refusal(resolveMongoSrv({ ...descriptor(), type: 'MYSQL' }, dns))).message).toContain('only a MongoDB datasource');
  });

  it('refuses an SRV name without records', async () => {
    expect((await refusal(resolveMongoSrv(descriptor(), fakeDns({ srv: [] })))).message).toContain(`${SRV_NAME} has no SRV records`);
  });

  it('reports a failed SRV look-up by its name and DNS code only', async () => {
    const error = await refusal(resolveMongoSrv(descriptor(), fakeDns({ srv: dnsError('ENOTFOUND') })));
    expect(error.message).toBe(`datasource URL: cannot look up ${SRV_NAME}: ENOTFOUND`);
    expect(error.cause).toBeUndefined();
    expect(error.fields).toEqual({ url: `cannot look up ${SRV_NAME}: ENOTFOUND` });
  });

  it('reports a failed TXT look-up other than "no record"', async () => {
    const dns = fakeDns({ srv: [record('shard-00.example.net')], txt: dnsError('ETIMEOUT') });
    expect((await refusal(resolveMongoSrv(descriptor(), dns))).message).toContain('cannot look up cluster0.example.net: ETIMEOUT');
  });
});
