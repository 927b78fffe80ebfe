// Written by `wfs agents install --target opencode`; removed by its --remove.
// At the start of each opencode session, `wfs prime` says where the active wfs session
// stands (its phase, the next task, what is blocked or paused, the ground rules); its
// digest joins the system prompt of that session's requests. A subagent's session (the
// task tool's) gets none: it does the one step its brief gives. Without wfs on PATH,
// or outside a wfs project, nothing is added.
export const WfsPrime = async ({ $, directory }) => {
  const digests = new Map()
  const subagents = new Set()

  async function prime() {
    try {
      const run = await $`wfs prime`.cwd(directory).quiet().nothrow()
      return run.exitCode === 0 ? run.stdout.toString().trim() : ""
    } catch {
      return ""
    }
  }

  return {
    event: async ({ event }) => {
      const info = event.type === "session.created" ? event.properties?.info : undefined
      if (info?.parentID) subagents.add(info.id)
    },
    "experimental.chat.system.transform": async (input, output) => {
      const session = input.sessionID
      if (!$ || !session || subagents.has(session)) return
      if (!digests.has(session)) digests.set(session, prime())
      const digest = await digests.get(session)
      if (digest) output.system.push(digest)
    },
  }
}
