from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'plan-fix.md.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_what = resolve('what')
    l_0_round = resolve('round')
    l_0_rounds = resolve('rounds')
    l_0_problems = resolve('problems')
    l_0_answered = resolve('answered')
    l_0_brief = resolve('brief')
    pass
    yield '# Fix the '
    yield str((undefined(name='what') if l_0_what is missing else l_0_what))
    yield ' (round '
    yield str((undefined(name='round') if l_0_round is missing else l_0_round))
    yield ' of '
    yield str((undefined(name='rounds') if l_0_rounds is missing else l_0_rounds))
    yield ')\n\nwfs refused your last answer; nothing was written. Its problems, one per line\n(`file#/json/pointer: rule: message`; the pointer names the place in your '
    yield str((undefined(name='what') if l_0_what is missing else l_0_what))
    yield '):\n\n~~~~text\n'
    for l_1_line in (undefined(name='problems') if l_0_problems is missing else l_0_problems):
        _loop_vars = {}
        pass
        yield str(l_1_line)
        yield '\n'
    l_1_line = missing
    yield '~~~~\n'
    if (undefined(name='answered') if l_0_answered is missing else l_0_answered):
        pass
        yield '\nYour last '
        yield str((undefined(name='what') if l_0_what is missing else l_0_what))
        yield ':\n\n```json\n'
        yield str((undefined(name='answered') if l_0_answered is missing else l_0_answered))
        yield '\n```\n'
    yield '\nFix each problem: do what the rule asks, and never drop tasks or steps just to get past\na rule. Then answer again with the whole corrected '
    yield str((undefined(name='what') if l_0_what is missing else l_0_what))
    yield ', as the brief below says.\n\n---\n\n'
    yield str((undefined(name='brief') if l_0_brief is missing else l_0_brief))

blocks = {}
debug_info = '5=18&8=24&11=26&12=29&15=33&17=36&20=38&25=41&29=43'