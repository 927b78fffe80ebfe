from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'expand-brief.md.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_task = resolve('task')
    l_0_planner = resolve('planner')
    l_0_sid = resolve('sid')
    l_0_task_json = resolve('task_json')
    l_0_siblings = resolve('siblings')
    l_0_repo = resolve('repo')
    l_0_example = resolve('example')
    l_0_parts = missing
    pass
    l_0_parts = context.vars['parts'] = environment.get_template('repository.md.j2', 'expand-brief.md.j2')._get_default_module(context)
    context.exported_vars.discard('parts')
    yield '# Split '
    yield str(context.call(environment.getattr((undefined(name='task') if l_0_task is missing else l_0_task), 'get'), 'id'))
    yield ': '
    yield str(context.call(environment.getattr((undefined(name='task') if l_0_task is missing else l_0_task), 'get'), 'title'))
    yield '\n\nYou are the planning agent of wfs ('
    yield str((undefined(name='planner') if l_0_planner is missing else l_0_planner))
    yield '). Split task '
    yield str(context.call(environment.getattr((undefined(name='task') if l_0_task is missing else l_0_task), 'get'), 'id'))
    yield ' of\nsession '
    yield str((undefined(name='sid') if l_0_sid is missing else l_0_sid))
    yield ' into subtasks that agents, and wfs itself, will carry out one after\nthe other in this repository. Study the code it touches first.\n\n## The task\n\n```json\n'
    yield str((undefined(name='task_json') if l_0_task_json is missing else l_0_task_json))
    yield "\n```\n\nIts session's tasks:\n\n"
    for l_1_sibling in (undefined(name='siblings') if l_0_siblings is missing else l_0_siblings):
        _loop_vars = {}
        pass
        yield '- '
        yield str(environment.getitem(l_1_sibling, 0))
        yield ' ('
        yield str(environment.getitem(l_1_sibling, 2))
        yield '): '
        yield str(environment.getitem(l_1_sibling, 1))
        yield '\n'
    l_1_sibling = missing
    yield '\n'
    yield str(context.call(environment.getattr((undefined(name='parts') if l_0_parts is missing else l_0_parts), 'repository'), (undefined(name='repo') if l_0_repo is missing else l_0_repo)))
    yield '\n'
    yield str(context.call(environment.getattr((undefined(name='parts') if l_0_parts is missing else l_0_parts), 'formats'), (undefined(name='example') if l_0_example is missing else l_0_example)))
    yield "\n## Your answer\n\nAnswer with a JSON array of the subtasks, in one fenced ```json block; or write it to a\nfile and put that file's path (relative to the project root) alone on the last line of\nyour answer. Each subtask is a task as above, with the id `"
    yield str(context.call(environment.getattr((undefined(name='task') if l_0_task is missing else l_0_task), 'get'), 'id'))
    yield '.1`,\n`'
    yield str(context.call(environment.getattr((undefined(name='task') if l_0_task is missing else l_0_task), 'get'), 'id'))
    yield '.2`, ... (or no id: they are numbered in order); `context.parent`\nand `context.inherited` are filled in from '
    yield str(context.call(environment.getattr((undefined(name='task') if l_0_task is missing else l_0_task), 'get'), 'id'))
    yield ', which becomes their\ncontainer. A subtask may depend on an earlier one.\n\nwfs validates the subtasks and writes them only when they are valid, all of them. When\nthey are refused, you get the problems, one per line as `file#/json/pointer: rule:\nmessage`, and answer again with the whole corrected array. Do not write the files under\n`.workflow/` yourself.\n'

blocks = {}
debug_info = '5=19&6=22&8=26&9=30&15=32&20=34&21=38&24=46&25=48&30=50&31=52&32=54'