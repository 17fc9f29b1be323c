// hook-policy for OpenCode: written by `policy install opencode`, removed by
// `policy uninstall opencode`. Every tool call is put to `policy hook
// opencode` before it runs; OpenCode runs a tool only when this hook returns,
// so a deny is a thrown error, whose message the model reads.
//
// Fail closed: a call goes ahead only when the command exits 0 with a JSON
// object that does not block. A command that cannot start, crashes, answers
// something else or takes longer than TIMEOUT_MS blocks the call.
import { spawn } from "node:child_process"

const POLICY = "@POLICY@"
const ARGS = ["hook", "opencode", "--policy-list", "@LIST@"]
const TIMEOUT_MS = 15000

function ask(event) {
  return new Promise((resolve, reject) => {
    let child
    try {
      child = spawn(POLICY, ARGS, { stdio: ["pipe", "pipe", "pipe"] })
    } catch (e) {
      return reject(new Error(`hook-policy could not run ${POLICY}: ${e.message}`))
    }
    const out = []
    const err = []
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`hook-policy did not answer within ${TIMEOUT_MS} ms, so the call is denied`))
    }, TIMEOUT_MS)
    child.stdout.on("data", (d) => out.push(d))
    child.stderr.on("data", (d) => err.push(d))
    child.stdin.on("error", () => {})
    child.on("error", (e) => {
      clearTimeout(timer)
      reject(new Error(`hook-policy could not run ${POLICY}: ${e.message}`))
    })
    child.on("close", (code) => {
      clearTimeout(timer)
      const stderr = Buffer.concat(err).toString().trim()
      if (code !== 0) {
        return reject(new Error(`hook-policy exited with status ${code}, so the call is denied: ${stderr}`))
      }
      let reply
      try {
        reply = JSON.parse(Buffer.concat(out).toString())
      } catch (e) {
        return reject(new Error(`hook-policy answered something that is not JSON, so the call is denied: ${stderr}`))
      }
      if (reply === null || typeof reply !== "object" || Array.isArray(reply)) {
        return reject(new Error("hook-policy answered something that is not a JSON object, so the call is denied"))
      }
      resolve(reply)
    })
    child.stdin.end(JSON.stringify(event))
  })
}

export const HookPolicy = async ({ directory, worktree }) => ({
  "tool.execute.before": async (input, output) => {
    const reply = await ask({
      hook_event_name: "tool.execute.before",
      tool: input.tool,
      sessionID: input.sessionID,
      callID: input.callID,
      args: output.args,
      directory,
      worktree,
    })
    if (Object.keys(reply).length !== 0) {
      const reason = typeof reply.reason === "string" ? reply.reason : "hook-policy denied this call"
      throw new Error(reason)
    }
  },
})
