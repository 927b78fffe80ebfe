// Written by `wfs agents install --target opencode`; removed by its --remove.
// At the start of each opencode session, `wfs prime` says where the active wfs session
// stands (its phase, the next task, what is blocked or paused, the ground rules); its
// digest joins the system prompt of that session's requests. Without wfs on PATH, or
// outside a wfs project, nothing is added.
export const WfsPrime = async ({ $, directory }) => {
  const digests = new Map()

  async function prime() {
    try {
      const run = await $`wfs prime`.cwd(directory).quiet().nothrow()
      return run.exitCode === 0 ? run.stdout.toString().trim() : ""
    } catch {
      return ""
    }
  }

  return {
    "experimental.chat.system.transform": async (input, output) => {
      if (!$ || !input.sessionID) return
      if (!digests.has(input.sessionID)) digests.set(input.sessionID, prime())
      const digest = await digests.get(input.sessionID)
      if (digest) output.system.push(digest)
    },
  }
}
