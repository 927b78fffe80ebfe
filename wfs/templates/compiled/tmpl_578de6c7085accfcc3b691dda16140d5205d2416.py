from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'repository.md.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_repository = l_0_formats = missing
    try:
        t_1 = environment.filters['length']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'length' found.")
    try:
        t_2 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    pass
    def macro(l_1_repo):
        t_3 = []
        if l_1_repo is missing:
            l_1_repo = undefined("parameter 'repo' was not provided", name='repo')
        pass
        t_3.extend((
            '## The repository\n\nProject root: `',
            str(environment.getattr(l_1_repo, 'root')),
            '` (paths in the plan are relative to it).\n\n',
        ))
        if t_2(environment.getattr(l_1_repo, 'files')):
            pass
            t_3.append(
                'It is not a git work tree: there is no list of tracked files. Look around before planning.\n',
            )
        elif (not environment.getattr(l_1_repo, 'files')):
            pass
            t_3.append(
                'It tracks no files yet.\n',
            )
        else:
            pass
            t_3.append(
                'Tracked files (`git ls-files`)',
            )
            if environment.getattr(l_1_repo, 'more_files'):
                pass
                t_3.extend((
                    ', the first ',
                    str(t_1(environment.getattr(l_1_repo, 'files'))),
                ))
            t_3.append(
                ':\n\n~~~~text\n',
            )
            for l_2_name in environment.getattr(l_1_repo, 'files'):
                _loop_vars = {}
                pass
                t_3.extend((
                    str(l_2_name),
                    '\n',
                ))
            l_2_name = missing
            t_3.append(
                '~~~~\n',
            )
            if environment.getattr(l_1_repo, 'more_files'):
                pass
                t_3.extend((
                    '\n... and ',
                    str(environment.getattr(l_1_repo, 'more_files')),
                    ' more file',
                    str(('s' if (environment.getattr(l_1_repo, 'more_files') != 1) else '')),
                    ' (`git ls-files` lists them all).\n',
                ))
        if environment.getattr(l_1_repo, 'readme'):
            pass
            t_3.extend((
                '\n### ',
                str(environment.getattr(environment.getattr(l_1_repo, 'readme'), 'name')),
                ' (its first lines)\n\n~~~~markdown\n',
                str(environment.getattr(environment.getattr(l_1_repo, 'readme'), 'head')),
                '\n~~~~\n',
            ))
            if environment.getattr(environment.getattr(l_1_repo, 'readme'), 'more'):
                pass
                t_3.extend((
                    '\n... and ',
                    str(environment.getattr(environment.getattr(l_1_repo, 'readme'), 'more')),
                    ' more line',
                    str(('s' if (environment.getattr(environment.getattr(l_1_repo, 'readme'), 'more') != 1) else '')),
                    '.\n',
                ))
        return concat(t_3)
    context.exported_vars.add('repository')
    context.vars['repository'] = l_0_repository = Macro(environment, macro, 'repository', ('repo',), False, False, False, context.eval_ctx.autoescape)
    yield '\n'
    def macro(l_1_example):
        t_4 = []
        if l_1_example is missing:
            l_1_example = undefined("parameter 'example' was not provided", name='example')
        pass
        t_4.extend((
            '## The task format\n\nEvery task of the plan is a JSON object. `id` (`IMPL-N`, or `IMPL-N.M` for a subtask of\n`IMPL-N`) and `title` are required; the rest is filled in with defaults, but a good plan\nsays it:\n\n- `meta.type` (`feature`, `bugfix`, `refactor`, `test-gen`, `test-fix`, `docs`, `test`)\n  and `meta.agent` (`@code-developer`, `@test-fix-agent`, `@universal-executor`, ...);\n- `context.requirements`, `context.acceptance` (what "done" means),\n  `context.focus_paths` (real paths relative to the project root, no wildcards, no `..`:\n  files that exist, or files the plan creates) and `context.depends_on` (the ids of the\n  tasks that must be completed first);\n- `flow_control.pre_analysis`: steps that gather context before the work\n  (`{"step": NAME, "action": ..., "command": "bash(...)", "output_to": NAME}`; other\n  commands: `Read(path)`, `Glob(pattern)`, `Grep(pattern, path)`);\n- `flow_control.implementation_approach`: the steps, numbered 1..n in array order, each\n  with `step`, `title`, `description`, `modification_points`, `logic_flow`,\n  `depends_on` (earlier step numbers) and `output` (a name later steps can use as\n  `[name]`). A step with a `command` such as `bash(python -m pytest -q tests/x)` is run\n  by wfs; a step without one is done by the task\'s agent. End each task with a step\n  whose command checks the work. Optional: `on_error` (`fail` by default, `retry_once`,\n  `skip_optional`, `manual_intervention`), `success_criteria` (`exit_code:0`,\n  `contains:TEXT`, `regex:PAT`, `not_empty`), `timeout` in seconds, `max_iterations`\n  (how many times a failing check after agent work goes back to the agent);\n- `[name]` in a description or a command is replaced by the output of an earlier step\n  or a task field (`[focus_paths]`, `[acceptance]`, `[requirements]`,\n  `[shared_context.key]`, `[dependency_summaries]`), as data, never as shell code.\n\nEach format is defined whole by a JSON Schema (draft 2020-12): `wfs schema task` prints\nthe task\'s, `wfs schema plan` the plan document\'s. Read them for a field not named here.\n\n### A complete example plan\n\n```json\n',
            str(l_1_example),
            '\n```\n',
        ))
        return concat(t_4)
    context.exported_vars.add('formats')
    context.vars['formats'] = l_0_formats = Macro(environment, macro, 'formats', ('example',), False, False, False, context.eval_ctx.autoescape)

blocks = {}
debug_info = '5=24&8=31&10=34&12=39&15=49&18=58&19=62&22=69&24=73&27=78&29=82&32=84&34=87&36=91&41=100&76=107'