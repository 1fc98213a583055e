/**
 * What the Twilio channels and sources of one agent must satisfy across its two files (contract
 * §21.4): a `type: twilio` source serves one `type: twilio` channel of the agent (whose auth token
 * checks its signatures), no channel is served twice, and a `mode: voice` channel has a source —
 * a call fetches its TwiML from one, so without it every call would be silence.
 */
import type { AnySourceConfig, ChannelConfig } from './schema.js';
import type { YamlFile } from './yaml-file.js';

export function twilioProblems(sources: YamlFile<{ sources: AnySourceConfig[] }>, channels: YamlFile<{ channels: ChannelConfig[] }>): string[] {
  const problems: string[] = [];
  const twilioChannels = channels.value.channels.filter((c) => c.type === 'twilio').map((c) => c.id);
  const served = new Map<string, number>();
  sources.value.sources.forEach((source, i) => {
    if (source.type !== 'twilio') return;
    const at = ['sources', i, 'channel'];
    if (!twilioChannels.includes(source.channel)) {
      problems.push(sources.problem(at, `no type: twilio channel ${sources.quote(at, source.channel)} in channels.yaml `
        + `(its twilio channels: ${twilioChannels.join(', ') || 'none'})`));
      return;
    }
    const earlier = served.get(source.channel);
    if (earlier === undefined) served.set(source.channel, i);
    else problems.push(sources.problem(at, `channel ${sources.quote(at, source.channel)} is already served by ${sources.where(['sources', earlier])}; `
      + 'one source per Twilio channel'));
  });
  channels.value.channels.forEach((channel, i) => {
    if (channel.type !== 'twilio' || channel.mode !== 'voice' || served.has(channel.id)) return;
    problems.push(channels.problem(['channels', i, 'mode'], `voice calls fetch their TwiML from a type: twilio source: add one to event-sources.yaml `
      + `with channel: ${channel.id} and a publicUrl Twilio can reach`));
  });
  return problems;
}
