/**
 * The dynamic-configuration API's objects (SPEC §4.3, reference system.md getObject/updateObject/
 * deleteObject). Objects created through the API live in the store; objects from configuration
 * files are read-only (403 on update or delete, SPEC §4.3 rule 2). Listeners (the SIP driver, the
 * endpoint registry) hear about every stored change so new endpoints take effect at once.
 */
import { CoreError, forbidden, invalidArgument, notFound } from '../errors.js';
import type { SipConfig } from '../config/types.js';
import type { ConfigObjectRecord, ConfigObjectStore, ConfigTupleRecord } from '../store/types.js';
import type { Logger } from '../util/logger.js';
import { CONFIG_CLASSES, checkAttribute, type ObjectSchema } from './config-schema.js';
import { fileObject } from './file-objects.js';

/** `fields` undefined: the object was deleted. */
export type ConfigObjectListener = (change: {
  configClass: string;
  objectType: string;
  id: string;
  fields: ConfigTupleRecord[] | undefined;
}) => void;

export interface DynamicConfigOptions {
  store: ConfigObjectStore | undefined;
  sip: () => SipConfig;
  log: Logger;
}

export class DynamicConfig {
  readonly #store: ConfigObjectStore | undefined;
  readonly #sip: () => SipConfig;
  readonly #log: Logger;
  readonly #listeners = new Set<ConfigObjectListener>();

  constructor(options: DynamicConfigOptions) {
    this.#store = options.store;
    this.#sip = options.sip;
    this.#log = options.log;
  }

  onChange(listener: ConfigObjectListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async get(configClass: string, objectType: string, id: string): Promise<ConfigTupleRecord[]> {
    schemaOf(configClass, objectType);
    const fromFile = fileObject(this.#sip(), configClass, objectType, id);
    if (fromFile) return fromFile;
    const stored = await this.#requireStore().get(configClass, objectType, id);
    if (!stored) throw notFound(`No ${objectType} object named ${id}`);
    return stored.fields;
  }

  /**
   * Creates the object, or merges `fields` into the stored one (an attribute given replaces all
   * previous values of that attribute). Returns the whole object after the change.
   */
  async update(configClass: string, objectType: string, id: string, fields: ConfigTupleRecord[] | undefined): Promise<ConfigTupleRecord[]> {
    const schema = schemaOf(configClass, objectType);
    if (id.length === 0) throw invalidArgument('Object id is required');
    if (fileObject(this.#sip(), configClass, objectType, id))
      throw forbidden(`${objectType} ${id} comes from a configuration file and cannot be changed here`);
    const store = this.#requireStore();
    const existing = await store.get(configClass, objectType, id);
    if (existing && (fields === undefined || fields.length === 0))
      throw invalidArgument('fields are required to update an existing object');
    for (const field of fields ?? []) {
      const problem = checkAttribute(schema, field.attribute, field.value);
      if (problem) throw invalidArgument(problem);
      if (field.attribute === 'type' && field.value !== objectType) throw invalidArgument(`type must be ${objectType}`);
    }
    const given = new Set((fields ?? []).map((f) => f.attribute));
    const kept = (existing?.fields ?? []).filter((f) => !given.has(f.attribute));
    const merged = [...kept, ...(fields ?? [])];
    if (!merged.some((f) => f.attribute === 'type')) merged.unshift({ attribute: 'type', value: objectType });
    const record: ConfigObjectRecord = { configClass, objectType, id, fields: merged };
    await store.put(record);
    this.#announce(configClass, objectType, id, merged);
    return merged;
  }

  async delete(configClass: string, objectType: string, id: string): Promise<void> {
    schemaOf(configClass, objectType);
    if (fileObject(this.#sip(), configClass, objectType, id))
      throw forbidden(`${objectType} ${id} comes from a configuration file and cannot be deleted here`);
    if (!(await this.#requireStore().delete(configClass, objectType, id))) throw notFound(`No ${objectType} object named ${id}`);
    this.#announce(configClass, objectType, id, undefined);
  }

  /** Objects of one class and type kept in the store (for startup: dynamic endpoints). */
  async stored(configClass: string, objectType: string): Promise<ConfigObjectRecord[]> {
    return this.#store ? this.#store.list(configClass, objectType) : [];
  }

  #announce(configClass: string, objectType: string, id: string, fields: ConfigTupleRecord[] | undefined): void {
    for (const listener of this.#listeners) {
      try {
        listener({ configClass, objectType, id, fields });
      } catch (err) {
        this.#log.error({ err, configClass, objectType, id }, 'configuration listener failed');
      }
    }
  }

  #requireStore(): ConfigObjectStore {
    if (!this.#store) throw new CoreError('unavailable', 'Configuration storage is not configured');
    return this.#store;
  }
}

function schemaOf(configClass: string, objectType: string): ObjectSchema {
  const types = CONFIG_CLASSES[configClass];
  if (!types) throw notFound(`Configuration class ${configClass} not found`);
  const schema = types[objectType];
  if (!schema) throw notFound(`Object type ${objectType} not found in ${configClass}`);
  return schema;
}
