import { z } from 'zod'
import { API_PREFIX, NoBodySchema, type RouteContract } from './routeContract.ts'

/** Key-set ids (and tenant names): 1–64 letters, digits, `_ . -`, starting with a letter or digit. */
export const KEY_SET_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/

/** A key-set id in a path or a query string. */
export const KeySetIdSchema = z
  .string()
  .regex(KEY_SET_ID, 'key-set ids are 1–64 letters, digits, _ . -, starting with a letter or digit')

/** `/api/v1/keysets/:id`. */
export const KeySetIdParamsSchema = z.object({ id: KeySetIdSchema }).strict()
export type KeySetIdParams = z.infer<typeof KeySetIdParamsSchema>

const hex32 = z.string().regex(/^[0-9a-f]{32}$/)

/** A key set as the server lists it (evaluation keys only: never a secret key). */
export const KeySetInfoSchema = z
  .object({
    tenant: z.string(),
    /** The name used in the URL. */
    id: z.string(),
    /** The secret key's id (32 hex): queries must carry the same one. */
    keySetId: hex32,
    /** Params fingerprint of the keys. */
    fingerprint: hex32,
    /** The server's search configId when the keys were made for it. */
    configId: z.string().optional(),
    kinds: z.array(z.enum(['relinKeys', 'galoisKeys'])).min(1),
    /** Galois elements present (what rotations the set supports). */
    galoisElements: z.array(z.number().int()),
    polyModulusDegree: z.number().int().optional(),
    label: z.string().max(200).optional(),
    /** Bytes stored (the uploaded envelope or bundle). */
    bytes: z.number().int().nonnegative(),
    /** SHA-256 of the stored bytes: the version of this key set. */
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .strict()
export type KeySetInfo = z.infer<typeof KeySetInfoSchema>

/** `GET /api/v1/keysets`: the tenant's key sets and how much of its quota they use. */
export const KeySetListSchema = z
  .object({
    tenant: z.string(),
    keySets: z.array(KeySetInfoSchema),
    usage: z
      .object({
        /** Bytes the tenant stores: its uploads and the server's kernel forms kept beside them. */
        bytes: z.number().int().nonnegative(),
        quotaBytes: z.number().int().nonnegative(),
        keySets: z.number().int().nonnegative(),
        maxKeySets: z.number().int().nonnegative(),
      })
      .strict(),
  })
  .strict()
export type KeySetList = z.infer<typeof KeySetListSchema>

export const putKeySetRoute = {
  method: 'PUT',
  path: `${API_PREFIX}/keysets/:id`,
  tags: ['keysets'],
  summary: 'Upload (or replace) a key set',
  description:
    'Body: a relinKeys or galoisKeys envelope, or a bundle of both (application/octet-stream). Secret keys are refused (SECRET_KEY_REFUSED). Keys for the server search parameters are loaded into SEAL before they are stored. 201: a new id; 200: it replaced the key set of that id.',
  params: KeySetIdParamsSchema,
  consumes: ['application/octet-stream'],
  response: { 200: KeySetInfoSchema, 201: KeySetInfoSchema },
} as const satisfies RouteContract

export const listKeySetsRoute = {
  method: 'GET',
  path: `${API_PREFIX}/keysets`,
  tags: ['keysets'],
  summary: "List this tenant's key sets",
  response: { 200: KeySetListSchema },
} as const satisfies RouteContract

export const getKeySetRoute = {
  method: 'GET',
  path: `${API_PREFIX}/keysets/:id`,
  tags: ['keysets'],
  summary: 'One key set',
  params: KeySetIdParamsSchema,
  response: { 200: KeySetInfoSchema },
} as const satisfies RouteContract

export const deleteKeySetRoute = {
  method: 'DELETE',
  path: `${API_PREFIX}/keysets/:id`,
  tags: ['keysets'],
  summary: 'Delete a key set',
  description: '204 once deleted; another tenant\'s key set is "not found" too.',
  params: KeySetIdParamsSchema,
  response: { 204: NoBodySchema },
} as const satisfies RouteContract

/** `?keySet=`: the uploaded key set a search or a program runs with (in the URL, so a proxy can route on it). */
export const KeySetQuerySchema = z
  .object({ keySet: z.string().regex(KEY_SET_ID, 'keySet must be a key-set id').optional() })
  .strict()
export type KeySetQuery = z.infer<typeof KeySetQuerySchema>
