import { describe, expect, it } from 'vitest'
import { serverUrlProblem } from './serverActions.ts'

describe('serverUrlProblem', () => {
  it("accepts this page's server (empty) and absolute http(s) addresses", () => {
    for (const url of ['', '   ', 'http://localhost:8080', 'https://sealbox.example/base']) {
      expect(serverUrlProblem(url)).toBeUndefined()
    }
  })

  it('says why anything else is not a server address, before anything is fetched', () => {
    expect(serverUrlProblem('not a url')).toMatch(/^"not a url" is not a URL; enter the server's address/)
    expect(serverUrlProblem('localhost:8080')).toMatch(/uses localhost; the server's address starts with http/)
    expect(serverUrlProblem('ftp://host')).toBe(
      '"ftp://host" uses ftp; the server\'s address starts with http:// or https://',
    )
  })
})
