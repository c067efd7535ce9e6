"""The interface in zh and en: the learner's choice (a toggle) or else Accept-Language.

The content's language follows the same choice. The catalog is small and checked by a test
(every key has both languages; every key a template uses exists).
"""

from __future__ import annotations

import dataclasses
import re

from flask import Flask, request, session
from markupsafe import Markup

from quizsvc.bank import ContentError, DrillQuestion, format_problem, localize, render_markdown
from quizsvc.drills import ParamsProblem, Tensor, Variant, with_each_tensor
from quizsvc.grading import AnswerRejected
from quizsvc.selftest import Check, Finding, Problem, SelfTestReport
from quizsvc.web.context import bank

LANGUAGES = ("zh", "en")
DEFAULT_LANGUAGE = "en"

MESSAGES: dict[str, dict[str, str]] = {
    "app_name": {"zh": "手算 Transformer", "en": "Transformer by hand"},
    "skip_to_content": {"zh": "跳到正文", "en": "Skip to content"},
    "nav_chapter": {"zh": "章节测试", "en": "Chapter quiz"},
    "nav_drills": {"zh": "计算练习", "en": "Drills"},
    "chapters_title": {"zh": "章节测试", "en": "Chapter quizzes"},
    "chapter_question_count": {"zh": "{count} 道题", "en": "{count} questions"},
    "chapter_question_count_singular": {"zh": "{count} 道题", "en": "{count} question"},
    "nav_worked_example": {"zh": "例题全程", "en": "Worked example"},
    "worked_example_intro": {
        "zh": "本章例子（“我 爱 你”，d_model = 4，单头）由引擎重新计算的每一步。"
        "本章印出的数字中与真实值不符的，列在对应矩阵下方。",
        "en": 'Every step of the chapter\'s example ("我 爱 你", d_model = 4, one head), '
        "recomputed by the engine. Where a number printed in the chapter is wrong, it is "
        "listed under its matrix.",
    },
    "chapter_misprint": {
        "zh": "{label} 的“{row}”行、“{column}”列：本章印为 {printed}，真实值 {true}",
        "en": "{label}, row {row}, column {column}: the chapter prints {printed},"
        " the true value is {true}",
    },
    "nav_progress": {"zh": "学习进度", "en": "Progress"},
    "nav_logout": {"zh": "退出", "en": "Log out"},
    "switch_language": {"zh": "English", "en": "中文"},
    "login_title": {"zh": "登录", "en": "Log in"},
    "username": {"zh": "用户名", "en": "User name"},
    # shown under the field and as its title (which browsers add to their "match the
    # requested format" message); the same rule as "account_name_invalid"
    "username_rule": {
        "zh": "1 到 64 个小写字母、数字、“.”、“_”或“-”，以字母或数字开头。",
        "en": "1 to 64 lower-case letters, digits, '.', '_' or '-', starting with a letter or "
        "digit.",
    },
    "password": {"zh": "密码", "en": "Password"},
    "register_title": {"zh": "注册学生账号", "en": "Create a student account"},
    "registration_closed": {
        "zh": "本站不开放自行注册：请向老师申请账号。",
        "en": "Self-registration is off: ask an instructor for an account.",
    },
    "display_name": {"zh": "显示名", "en": "Display name"},
    "password_again": {"zh": "再次输入密码", "en": "Password again"},
    "login_failed": {"zh": "用户名或密码错误。", "en": "Wrong user name or password."},
    "logged_out": {"zh": "已退出。", "en": "You are logged out."},
    "login_throttled": {
        "zh": "这个用户名的登录失败次数过多，请 {count} 分钟后再试。",
        "en": "Too many failed attempts to log in as this user. Try again in {count} minutes.",
    },
    "login_throttled_singular": {
        "zh": "这个用户名的登录失败次数过多，请 {count} 分钟后再试。",
        "en": "Too many failed attempts to log in as this user. Try again in {count} minute.",
    },
    "login_throttled_address": {
        "zh": "从这个网络地址登录失败的次数过多，请 {count} 分钟后再试。",
        "en": "Too many failed attempts to log in from this network address. Try again in "
        "{count} minutes.",
    },
    "login_throttled_address_singular": {
        "zh": "从这个网络地址登录失败的次数过多，请 {count} 分钟后再试。",
        "en": "Too many failed attempts to log in from this network address. Try again in "
        "{count} minute.",
    },
    "password_change_throttled": {
        "zh": "当前密码输错的次数过多，请 {count} 分钟后再试。",
        "en": "The current password was wrong too many times. Try again in {count} minutes.",
    },
    "password_change_throttled_singular": {
        "zh": "当前密码输错的次数过多，请 {count} 分钟后再试。",
        "en": "The current password was wrong too many times. Try again in {count} minute.",
    },
    "nav_password": {"zh": "修改密码", "en": "Password"},
    # logging in (auth), a drill grid's cells (drills), a key changed since answering (quiz)
    "login_required": {
        "zh": "请先登录，再访问这个页面。",
        "en": "Please log in to access this page.",
    },
    "signed_out_form_not_sent": {
        "zh": "你已经退出登录（比如在别的标签页里），刚才的表单没有提交。"
        "请重新登录，然后再提交一次。",
        "en": "You had been logged out (in another tab, say), so the form was not sent. Log in "
        "and send it again.",
    },
    "signed_out_password_changed": {
        "zh": "你的密码已经修改，这里的登录随之失效：请用新密码重新登录。",
        "en": "Your password was changed, so you were signed out here: log in again with "
        "the new password.",
    },
    # what is wrong with one cell, after its row and column headers ("我, d1: empty")
    "cell_empty": {"zh": "没有填写", "en": "empty"},
    "cell_several_numbers": {
        "zh": "“{text}”不止一个数：只填一个数",
        "en": "“{text}” is more than one number: type just one",
    },
    "cell_decimal_comma": {
        "zh": "“{text}”用逗号作了小数点：请写 {fixed}",
        "en": "“{text}” has a decimal comma: write {fixed}",
    },
    "cell_comma_decimal_or_thousands": {
        "zh": "“{text}”里的逗号不知是小数点还是千位分隔：小数请写 {decimal}，整数请写 {whole}",
        "en": "“{text}”: is the comma a decimal point or a thousands separator? "
        "Write {decimal} or {whole}",
    },
    "cell_not_a_number": {"zh": "“{text}”不是数字", "en": "“{text}” is not a number"},
    "cell_nan": {"zh": "NaN 不是可以评分的数", "en": "NaN is not a number you can be graded on"},
    "cell_too_large": {
        "zh": "“{text}”太大，不是有限的数（如果指无穷大，请写 inf）",
        "en": "“{text}” is too large to be a finite number (write inf if you mean infinity)",
    },
    "cell_division_by_zero": {"zh": "“{text}”除以了零", "en": "“{text}” divides by zero"},
    "numeric_key_changed": {
        "zh": "你作答之后，这道题的答案改过了；你记录的得分保持不变。",
        "en": "The key has changed since you answered; your recorded score stands.",
    },
    "change_password_title": {"zh": "修改密码", "en": "Change your password"},
    "change_password_intro": {
        "zh": "修改后，你在其他浏览器或设备上的登录都会失效，本浏览器保持登录。",
        "en": "Changing it signs you out everywhere else; this browser stays signed in.",
    },
    "current_password": {"zh": "当前密码", "en": "Current password"},
    "new_password": {"zh": "新密码（至少 8 个字符）", "en": "New password (8 characters or more)"},
    "new_password_again": {"zh": "再次输入新密码", "en": "New password again"},
    # account forms refused by the store (quizsvc.web.auth.account_problem); the English
    # texts are the store's own messages, which the CLI prints
    "account_name_taken": {
        "zh": "用户名“{name}”已被使用。",
        "en": "A user named {name!r} already exists.",
    },
    "account_name_invalid": {
        "zh": "用户名“{name}”无效：请用 1 到 64 个小写字母、数字、“.”、“_”或“-”，"
        "并以字母或数字开头。",
        "en": "Invalid user name {name!r}: use 1 to 64 lower-case letters, digits, '.', '_' "
        "or '-', starting with a letter or digit.",
    },
    "account_display_name_too_long": {
        "zh": "显示名最多 {max} 个字符。",
        "en": "The display name must have 1 to {max} characters.",
    },
    "account_display_name_nul": {
        "zh": "显示名里有 NUL 字符（\\u0000），无法保存。",
        "en": "The display name contains a NUL character (\\u0000).",
    },
    "account_password_empty": {"zh": "密码不能为空。", "en": "The password is empty."},
    "account_password_only_spaces": {
        "zh": "密码不能只有空格。",
        "en": "The password is only spaces.",
    },
    "account_password_too_short": {
        "zh": "密码太短：至少需要 {min} 个字符。",
        "en": "The password is too short: use at least {min} characters.",
    },
    "account_password_too_long": {
        "zh": "密码不能超过 {max} 个字符。",
        "en": "The password is longer than {max} characters.",
    },
    "account_passwords_differ": {
        "zh": "两次输入的密码不一致。",
        "en": "The two passwords differ.",
    },
    "account_new_passwords_differ": {
        "zh": "两次输入的新密码不一致。",
        "en": "The two new passwords differ.",
    },
    "account_wrong_password": {
        "zh": "当前密码不正确。",
        "en": "The current password is wrong.",
    },
    "password_changed": {
        "zh": "密码已修改，其他地方的登录已失效。",
        "en": "Your password is changed; your other sessions are signed out.",
    },
    "submit": {"zh": "提交", "en": "Submit"},
    "question_heading": {"zh": "第 {n} 题", "en": "Question {n}"},
    "choose_one": {"zh": "选择一个答案", "en": "Choose one answer"},
    "choose_all_that_apply": {"zh": "选择所有符合的答案", "en": "Choose every answer that applies"},
    "your_answer": {"zh": "你的答案", "en": "Your answer"},
    "correct_answer": {"zh": "正确答案", "en": "Correct answer"},
    "explanation": {"zh": "解析", "en": "Explanation"},
    "reference_answer": {"zh": "参考答案", "en": "Reference answer"},
    "key_points": {"zh": "要点", "en": "Key points"},
    "correct": {"zh": "正确", "en": "Correct"},
    "wrong": {"zh": "错误", "en": "Wrong"},
    "partly_right": {"zh": "部分正确，得分 {score}", "en": "Partly right, score {score}"},
    "automatic_score": {"zh": "自动评分：{score}", "en": "Automatic score: {score}"},
    "answer_shape_number": {
        "zh": "答案是一个数（−∞ 写作 -inf）。",
        "en": "The answer is one number (write -inf for −∞).",
    },
    "answer_shape_row": {
        "zh": "答案是一行 {count} 个数，用逗号或空格分隔（−∞ 写作 -inf）。",
        "en": "The answer is a row of {count} numbers, separated by commas or spaces "
        "(write -inf for −∞).",
    },
    "answer_shape_matrix": {
        "zh": "答案是 {rows} × {cols} 的矩阵（行 × 列）：每行写一行（或用 ; 分隔各行），"
        "同一行的数用逗号或空格分隔（−∞ 写作 -inf）。",
        "en": "The answer is a {rows} × {cols} matrix (rows × columns): one row per line (or "
        "rows separated by ;), the numbers of a row separated by commas or spaces (write "
        "-inf for −∞).",
    },
    "score": {"zh": "得分", "en": "Score"},
    "awaiting_review": {
        "zh": "等待老师评阅。",
        "en": "Waiting for an instructor's review.",
    },
    "reviewed": {"zh": "老师评阅：{score}", "en": "Instructor's score: {score}"},
    "reviewer_comment": {"zh": "评语", "en": "Comment"},
    "drills_title": {"zh": "计算练习", "en": "Drills"},
    "drills_intro": {
        "zh": "每道练习都由一次真实的前向计算生成：数字小，可以手算。",
        "en": "Every drill comes from one real forward pass, with numbers small enough to "
        "compute by hand.",
    },
    "next_recommended": {"zh": "推荐下一题", "en": "Next recommended"},
    "recommended_unpractised": {
        "zh": "它练的是你还没练过的技能：{skill}。",
        "en": "It practises a skill you have not practised yet: {skill}.",
    },
    "recommended_weakest": {
        "zh": "它练的是你目前最弱的技能：{skill}，掌握度 {mastery}。",
        "en": "It practises your weakest skill so far: {skill} (mastery {mastery}).",
    },
    "start": {"zh": "开始", "en": "Start"},
    "start_named": {"zh": "开始：{title}", "en": "Start: {title}"},
    "continue": {"zh": "继续", "en": "Continue"},
    "continue_named": {"zh": "继续：{title}", "en": "Continue: {title}"},
    "unfinished_variants": {"zh": "未完成的练习", "en": "Unfinished variants"},
    "drill_not_started": {"zh": "还没做过", "en": "Not tried yet"},
    "drill_unfinished": {
        "zh": "{count} 组未完成，“继续”打开最新的一组",
        "en": "{count} unfinished variants, Continue opens the newest",
    },
    "drill_unfinished_singular": {
        "zh": "{count} 组未完成，“继续”打开它",
        "en": "{count} unfinished variant, Continue opens it",
    },
    "drill_finished": {"zh": "已完成 {count} 组", "en": "{count} variants finished"},
    "drill_finished_singular": {"zh": "已完成 {count} 组", "en": "{count} variant finished"},
    "drill_best_score": {
        "zh": "最好成绩 {score}（每组按最好的一次计）",
        "en": "best score {score} (each variant at its best attempt)",
    },
    "started_at": {"zh": "开始于 {at}", "en": "started {at}"},
    # a variant by its number (as in its address): two unfinished ones of a drill differ
    "exercise_number": {"zh": "第 {n} 号题", "en": "exercise {n}"},
    "new_variant": {"zh": "换一组数字", "en": "New variant"},
    "given": {"zh": "已知", "en": "Given"},
    "answer_grid_help": {
        "zh": "逐格填写，或把整个矩阵粘贴到下面的文本框（行用换行或 ; 分隔，-inf 表示 −∞）。",
        "en": "Fill in the grid, or paste the whole matrix into the text box below (rows "
        "separated by new lines or ;, -inf for −∞).",
    },
    "paste_matrix": {"zh": "粘贴矩阵", "en": "Paste a matrix"},
    "attempts_left": {"zh": "剩余次数：{n}", "en": "Attempts left: {n}"},
    "graded_number": {"zh": "第 {attempt} 次作答的批改", "en": "Attempt {attempt} as graded"},
    "graded_attempt": {
        "zh": "第 {attempt} 次作答的批改（对的格子附可接受区间）",
        "en": "Attempt {attempt} as graded (with the accepted range of each right cell)",
    },
    "variant_best_score": {
        "zh": "本题得分：{score}（按你最好的一次计算，重试不会拉低它）。",
        "en": "Your score for this drill: {score} (your best attempt counts, so a retry never "
        "lowers it).",
    },
    "attempt_score": {
        "zh": "第 {attempt} 次：得分 {score}",
        "en": "Attempt {attempt}: score {score}",
    },
    "attempt_score_after_retry": {
        "zh": "第 {attempt} 次：得分 {score}（答对 {raw}，重试扣去 {penalty}）",
        "en": "Attempt {attempt}: score {score} ({raw} right, minus {penalty} for retrying)",
    },
    "fix_wrong_cells": {
        "zh": "标 ✗ 的格子在第 {attempt} 次作答中是错的。表格里留着你的答案："
        "改正这些格子，再提交。",
        "en": "The cells marked ✗ were wrong in attempt {attempt}. The grid still holds your "
        "answer: correct those cells and submit again.",
    },
    "fix_wrong_answer": {
        "zh": "第 {attempt} 次的答案是错的。输入框里留着你的答案：改正后再提交。",
        "en": "Attempt {attempt} was wrong. The box still holds your answer: correct it and "
        "submit again.",
    },
    "wrong_in_attempt": {"zh": "第 {attempt} 次填错", "en": "wrong in attempt {attempt}"},
    "answer_not_read": {
        "zh": "无法读取你的答案，这次不计入次数。请改正以下问题，再提交：",
        "en": "Your answer could not be read, so no attempt was used. Fix the following, "
        "then submit again:",
    },
    # between a label and what follows it ("Skill: Softmax"): full-width in Chinese
    "colon": {"zh": "：", "en": ": "},
    "no_answer_entered": {"zh": "还没有填写答案。", "en": "No answer was entered."},
    "invalid_answer_in_grid": {
        "zh": "无法读取表格中的答案：{message}",
        "en": "Could not read the answer in the grid: {message}",
    },
    "grid_and_paste_box_differ": {
        "zh": "表格和“{box}”框里的答案不一致：请清空其中一个，再提交。",
        "en": "The grid and the “{box}” box hold different answers: empty one of them, "
        "then submit again.",
    },
    "paste_box_help": {
        "zh": "粘贴或输入到这里、形状与表格相同的矩阵会填入上面的表格；"
        "其他内容只在表格为空时使用。",
        "en": "A matrix of the grid's shape pasted or typed here is copied into the grid "
        "above; anything else is used only while the grid is empty.",
    },
    "pasted_into_grid": {
        "zh": "已填入表格：{rows} 行 × {cols} 列。",
        "en": "Copied into the grid: {rows} × {cols}.",
    },
    "pasted_into_whole_grid": {
        "zh": "粘贴的 {rows} 行 × {cols} 列矩阵从这一格放不下，已从左上角起填满整个表格。",
        "en": "The pasted {rows} × {cols} matrix did not fit from that cell: it fills the "
        "whole grid, from the top left.",
    },
    "pasted_matrix_does_not_fit": {
        "zh": "没有粘贴：粘贴的是 {rows} 行 × {cols} 列，从这一格起放不下（表格是 "
        "{grid_rows} 行 × {grid_cols} 列）。",
        "en": "Nothing was pasted: the pasted matrix is {rows} × {cols}, and from that cell "
        "it does not fit the {grid_rows} × {grid_cols} grid.",
    },
    "no_attempts_left": {"zh": "没有剩余次数了。", "en": "No attempts left."},
    "already_solved": {
        "zh": "这组题你已经做对了（也许是在另一个标签页里），不再接受新的答案；评分和解答见下方。",
        "en": "You have already solved this variant (perhaps in another tab), so it takes no "
        "more answers; its marks and solution are below.",
    },
    "tolerance_absolute": {
        "zh": "与精确值相差不超过 ±{atol} 的答案算对。",
        "en": "Answers within ±{atol} of the exact value count as correct.",
    },
    "tolerance_relative": {
        "zh": "与精确值相差不超过 ±({atol} + {rtol} × |精确值|) 的答案算对。",
        "en": "Answers within ±({atol} + {rtol} × |exact value|) of the exact value count "
        "as correct.",
    },
    "tolerance_exact": {
        "zh": "只有精确值才算对。",
        "en": "Only the exact value counts as correct.",
    },
    "all_or_nothing_rule": {
        "zh": "所有格子都对才得分：错一格就是 0 分。",
        "en": "Every cell must be right to score: one wrong cell scores 0.",
    },
    "retry_penalty": {
        "zh": "每多尝试一次，得分扣 {penalty}。",
        "en": "Each further attempt takes {penalty} off the score.",
    },
    "accepted_value": {"zh": "可接受的值", "en": "Accepted value"},
    "form_already_sent": {
        "zh": "这份表单已经提交过，修改后的答案没有记录。",
        "en": "This form was already sent, so the changed answer was not recorded.",
    },
    "solution": {"zh": "详细解答", "en": "Worked solution"},
    "heatmap_description": {
        "zh": "注意力权重 {name}：每行是一个查询（query），每列是一个键（key）；"
        "颜色越深权重越大，每格标有数值。",
        "en": "Attention weights {name}: one row per query, one column per key; the darker "
        "the square, the larger the weight, and each square shows its value.",
    },
    "attention_heatmap": {"zh": "注意力权重热力图", "en": "Attention weights heatmap"},
    "accepted_interval": {"zh": "可接受区间", "en": "Accepted interval"},
    "progress_title": {"zh": "学习进度", "en": "Progress"},
    "skill": {"zh": "技能", "en": "Skill"},
    "skills_table": {"zh": "各技能进度", "en": "Progress per skill"},
    "attempts": {"zh": "次数", "en": "Attempts"},
    "best": {"zh": "最佳", "en": "Best"},
    "last": {"zh": "最近", "en": "Last"},
    "mastery": {"zh": "掌握度", "en": "Mastery"},
    "last_activity": {"zh": "最近活动（UTC）", "en": "Last activity (UTC)"},
    "kind_drill": {"zh": "练习", "en": "Drill"},
    "kind_quiz": {"zh": "章节测试", "en": "Chapter quiz"},
    "mastery_help": {
        "zh": "掌握度是偏重近期的平均分：从 0 开始，每道评过分的题都让它向这道题的得分移动差距的 "
        "{weight}，所以连续满分依次得到 {series}。练习的每一道题（一次抽到的题目）只算一次，"
        "按你几次尝试中的最好成绩计算，所以改正错误永远不会拉低掌握度。“次数”是所有评过分的"
        "尝试，“最佳”是其中最好的一次，“最近”是最近一道题的得分。",
        "en": "Mastery is an average that favours recent answers: it starts at 0, and every "
        "graded answer on the skill moves it {weight} of the way to that answer's score, so "
        "perfect answers in a row give {series}. Each exercise of a drill counts once, at your "
        "best attempt at it, so correcting a mistake never lowers your mastery. Attempts counts "
        "every graded try, Best is the best of them, and Last is your newest answer's score.",
    },
    "chart_mastery": {"zh": "各技能掌握度（0–100%）", "en": "Mastery per skill (0 to 100 %)"},
    "chart_history": {
        "zh": "最近得分（从早到晚，0–100%）",
        "en": "Your recent scores, oldest first (0 to 100 %)",
    },
    # the same chart of a student, on an instructor's page
    "chart_scores": {
        "zh": "最近得分（从早到晚，0–100%）",
        "en": "Recent scores, oldest first (0 to 100 %)",
    },
    "recent_history": {"zh": "最近记录", "en": "Recent history"},
    "awaiting_review_short": {"zh": "待评阅", "en": "awaiting review"},
    "no_progress": {"zh": "还没有记录。先做一道练习吧。", "en": "Nothing yet. Try a drill."},
    "error_title": {"zh": "出错了", "en": "Something went wrong"},
    "back_home": {"zh": "返回首页", "en": "Back to the start page"},
    # error pages (quizsvc/web/errors.py and the views' 404s); the JSON API's stay English
    "error_bad_request": {
        "zh": "服务器无法理解这个请求。",
        "en": "The browser (or proxy) sent a request that this server could not understand.",
    },
    "error_forbidden": {
        "zh": "你没有访问这个页面的权限。",
        "en": "You don't have the permission to access the requested resource. It is "
        "either read-protected or not readable by the server.",
    },
    "error_not_found": {
        "zh": "没有这个页面。如果地址是手动输入的，请检查拼写后再试。",
        "en": "The requested URL was not found on the server. If you entered the URL manually "
        "please check your spelling and try again.",
    },
    "error_method_not_allowed": {
        "zh": "这个地址不接受这种请求方式。",
        "en": "The method is not allowed for the requested URL.",
    },
    "error_too_large": {
        "zh": "发送的数据太大了。",
        "en": "The data value transmitted exceeds the capacity limit.",
    },
    "error_internal": {
        "zh": "服务器内部出错，无法完成请求。请稍后再试。",
        "en": "The server encountered an internal error and was unable to complete your "
        "request. Either the server is overloaded or there is an error in the application.",
    },
    "error_csrf_failed": {
        "zh": "CSRF 校验失败：表单的安全令牌缺失或已过期，表单没有提交。"
        "请返回表单所在的页面，刷新后再提交（刷新本页只会重发过期的表单）。",
        "en": "CSRF check failed: the form's security token is missing or out of date, so the "
        "form was not sent. Go back to the form's page, reload it and send the form again "
        "(reloading this page would send the old form again).",
    },
    "error_instructors_only": {
        "zh": "这个页面只对老师开放。",
        "en": "This page is for instructors.",
    },
    "error_unknown_language": {
        "zh": "没有语言“{code}”；可选：{choices}",
        "en": "Unknown language {code!r}: choose one of {choices}.",
    },
    "error_unknown_role": {"zh": "没有角色“{role}”。", "en": "Unknown role {role!r}."},
    "error_no_chapter": {"zh": "没有章节“{id}”。", "en": "There is no chapter {id!r}."},
    "error_no_question_in_chapter": {
        "zh": "章节“{chapter}”中没有题目“{id}”。",
        "en": "There is no question {id!r} in chapter {chapter!r}.",
    },
    "error_no_drill": {"zh": "没有练习“{id}”。", "en": "There is no drill {id!r}."},
    "error_no_drill_variant": {
        "zh": "你没有编号为 {id} 的练习题。",
        "en": "You have no drill exercise numbered {id}.",
    },
    "error_no_drills": {
        "zh": "题库里没有计算练习。",
        "en": "There are no drills in the question bank.",
    },
    # --- instructor pages (quizsvc/web/instructor.py, templates/instructor/) ---
    "nav_instructor": {"zh": "教师", "en": "Instructor"},
    "instructor_home": {"zh": "概览", "en": "Overview"},
    "instructor_content": {"zh": "题库内容", "en": "Content"},
    "instructor_preview": {"zh": "预览", "en": "Preview"},
    "instructor_selftest": {"zh": "内容自测", "en": "Self-test"},
    "instructor_reviews": {"zh": "待评阅", "en": "Review queue"},
    "instructor_students": {"zh": "学生", "en": "Students"},
    "instructor_add_account": {"zh": "添加账号", "en": "Add an account"},
    "instructor_account_created": {
        "zh": "已创建账号 {name}（{role}）。",
        "en": "Account {name} ({role}) created.",
    },
    "role": {"zh": "角色", "en": "Role"},
    "role_student": {"zh": "学生", "en": "Student"},
    "role_instructor": {"zh": "老师", "en": "Instructor"},
    "instructor_reports": {"zh": "报表", "en": "Reports"},
    "instructor_report": {"zh": "学习报告", "en": "Report"},
    "instructor_version": {"zh": "版本", "en": "version"},
    "instructor_live_version": {"zh": "当前题库版本", "en": "Live bank version"},
    "instructor_bank_summary": {"zh": "{chapters}，{questions}", "en": "{chapters}, {questions}"},
    # a key ending in _singular is the form translate() picks for count=1 (English singulars)
    "instructor_chapter_count": {"zh": "{count} 个章节", "en": "{count} chapters"},
    "instructor_chapter_count_singular": {"zh": "{count} 个章节", "en": "{count} chapter"},
    "instructor_question_count": {"zh": "{count} 道题", "en": "{count} questions"},
    "instructor_question_count_singular": {"zh": "{count} 道题", "en": "{count} question"},
    "instructor_waiting": {"zh": "份开放题答案待评阅", "en": "open answers awaiting review"},
    "instructor_waiting_singular": {
        "zh": "份开放题答案待评阅",
        "en": "open answer awaiting review",
    },
    "instructor_reload": {"zh": "从磁盘重新加载", "en": "Reload from disk"},
    "instructor_reload_help": {
        "zh": "重新读取 {dir} 中的题库，无需重启。只有全部内容都有效时才会替换当前题库；"
        "否则显示所有错误（文件、行号、路径），当前题库保持不变。",
        "en": "Reads the question bank in {dir} again, without a restart. The live bank is "
        "replaced only if the whole content is valid; otherwise every error is shown (file, "
        "line, path) and the live bank stays as it is.",
    },
    "instructor_reload_workers": {
        "zh": "重新加载只作用于当前进程：请用一个工作进程（加多线程）运行服务，"
        "如 make run；若有多个 gunicorn 工作进程，其他进程仍使用旧题库。",
        "en": "A reload reaches only the process that serves it: run the service with ONE "
        "worker process (and threads), as make run does; with several gunicorn worker "
        "processes the others would keep serving the old bank.",
    },
    "instructor_reload_button": {"zh": "重新加载题库", "en": "Reload the content"},
    "instructor_reloaded": {
        "zh": "已重新加载：版本 {old} → {new}（{count} 道题）。",
        "en": "Reloaded: version {old} → {new} ({count} questions).",
    },
    "instructor_reloaded_singular": {
        "zh": "已重新加载：版本 {old} → {new}（{count} 道题）。",
        "en": "Reloaded: version {old} → {new} ({count} question).",
    },
    "instructor_reload_unchanged": {
        "zh": "已重新加载：内容没有变化（版本 {version}）。",
        "en": "Reloaded: the content has not changed (version {version}).",
    },
    "instructor_reload_rejected": {
        "zh": "新内容有 {count} 个错误，已全部拒绝；当前题库保持不变。",
        "en": "The new content was rejected as a whole (errors: {count}); the live "
        "bank is unchanged.",
    },
    "instructor_disk_valid": {"zh": "磁盘上的内容有效", "en": "The content on disk is valid"},
    "instructor_disk_same": {"zh": "与当前题库相同", "en": "same as the live bank"},
    "instructor_disk_differs": {
        "zh": "与当前题库不同：重新加载后生效",
        "en": "differs from the live bank: reload to serve it",
    },
    "instructor_disk_invalid": {
        "zh": "磁盘上的内容有 {count} 个错误（当前题库不受影响）：",
        "en": "The content on disk has errors ({count}; the live bank is not affected):",
    },
    "instructor_content_errors": {"zh": "内容错误", "en": "Content errors"},
    "instructor_file": {"zh": "文件", "en": "File"},
    "instructor_line": {"zh": "行", "en": "Line"},
    "instructor_path": {"zh": "路径", "en": "Path"},
    "instructor_message": {"zh": "问题", "en": "Problem"},
    "instructor_chapters": {"zh": "章节", "en": "Chapters"},
    "instructor_order": {"zh": "顺序", "en": "Order"},
    "instructor_title": {"zh": "标题", "en": "Title"},
    "instructor_questions": {"zh": "题目", "en": "Questions"},
    "instructor_type": {"zh": "类型", "en": "Type"},
    "instructor_source": {"zh": "位置", "en": "Source"},
    "instructor_prompt": {"zh": "题干", "en": "Prompt"},
    "instructor_status": {"zh": "状态", "en": "Status"},
    "instructor_live": {"zh": "在用", "en": "live"},
    "instructor_live_file_has_errors": {
        "zh": "在用；磁盘上的文件有错误",
        "en": "live; its file on disk has errors",
    },
    "instructor_preview_help": {
        "zh": "查看任一题目的学生视图和答案视图；计算练习按所选种子生成题目、答案和详细解答。"
        "预览不会保存任何内容。",
        "en": "Shows any question as a learner sees it and with its answer key; a drill is "
        "generated for the chosen seed, with its answer and worked solution. A preview "
        "stores nothing.",
    },
    "instructor_question": {"zh": "题目", "en": "Question"},
    "instructor_seed": {"zh": "种子", "en": "Seed"},
    "instructor_show": {"zh": "显示", "en": "Show"},
    "instructor_public_view": {"zh": "学生视图（作答前）", "en": "Public view (before answering)"},
    "instructor_solution_view": {
        "zh": "答案视图（作答后）",
        "en": "Solution view (after answering)",
    },
    "instructor_rubric": {"zh": "评分要点", "en": "Rubric"},
    "instructor_choice_scores": {
        "zh": "各选项的得分（负分是勾选错误选项的扣分）",
        "en": "What each choice scores (a negative score is the penalty for ticking it)",
    },
    "instructor_choice": {"zh": "选项", "en": "Choice"},
    "instructor_weight": {"zh": "权重", "en": "weight"},
    "instructor_phrases": {"zh": "关键词", "en": "Phrases"},
    "instructor_variant": {"zh": "种子 {seed} 生成的题目", "en": "Variant for seed {seed}"},
    "instructor_params": {
        "zh": "这组题的参数（YAML 中的名称；YAML 没写的取默认值或由种子抽取）",
        "en": "This variant's parameters (named as in the YAML; those it leaves out take "
        "their defaults or are drawn from the seed)",
    },
    "instructor_learner_grid": {
        "zh": "学生填写答案的表格（预览中不能填写）",
        "en": "The grid the learner answers in (disabled in the preview)",
    },
    "instructor_bad_seed": {
        "zh": "种子必须是 0 到 {max} 之间的整数，而不是 {seed!r}。",
        "en": "The seed must be a whole number from 0 to {max}, not {seed!r}.",
    },
    "instructor_no_question": {"zh": "没有题目 {id!r}。", "en": "There is no question {id!r}."},
    "instructor_selftest_help": {
        "zh": "对当前题库运行内容自测（quizsvc content test）：每道数值题和每道练习（多个种子）"
        "的答案都要经过真实的评分器；每道开放题的参考答案（中英文）都要命中评分要点的每一项。",
        "en": "Runs the content self-test (quizsvc content test) on the live bank: every "
        "numeric question's and every drill's (for several seeds) answer key is put through "
        "the real grader, and every open question's reference answer (in both languages) "
        "must make each point of its rubric.",
    },
    "instructor_selftest_run": {"zh": "运行自测", "en": "Run the self-test"},
    "instructor_seeds": {"zh": "种子", "en": "Seeds"},
    "instructor_checks": {"zh": "检查", "en": "Checks"},
    "instructor_passed": {"zh": "通过", "en": "passed"},
    "instructor_failed": {"zh": "失败", "en": "FAILED"},
    "instructor_selftest_skipped": {
        "zh": "跳过（没有数值答案）",
        "en": "Skipped (no numeric answer)",
    },
    "instructor_reviews_help": {
        "zh": "等待评阅的开放题答案，最早的在前（最多 {limit} 份）。找到的评分关键词已高亮。"
        "得分填百分比（如 75 或 75%）或“得分/满分”（如 1.5/2）。",
        "en": "Open answers awaiting review, oldest first (at most {limit}). Rubric phrases "
        "found in an answer are highlighted. Enter the score as a percentage (75 or 75 %) or "
        "as points out of the total (1.5/2).",
    },
    "instructor_queue_empty": {"zh": "没有待评阅的答案。", "en": "No answers are waiting."},
    "instructor_answered_at": {"zh": "作答于", "en": "Answered"},
    "instructor_question_gone": {
        "zh": "这道题已不在当前题库中。",
        "en": "This question is no longer in the live bank.",
    },
    "instructor_student_answer": {"zh": "学生答案", "en": "Student's answer"},
    "instructor_reference_in_answer_language": {
        "zh": "以学生作答的语言（{language}）显示，便于对照。",
        "en": "Shown in {language}, the language the answer is written in, to read beside it.",
    },
    "language_zh": {"zh": "中文", "en": "Chinese"},
    "language_en": {"zh": "英文", "en": "English"},
    "instructor_found": {"zh": "已找到", "en": "found"},
    "instructor_not_found": {"zh": "未找到", "en": "not found"},
    "instructor_suggested": {"zh": "建议得分", "en": "Suggested score"},
    "instructor_suggested_now": {
        "zh": "按当前题库的评分要点：{score}",
        "en": "with the live bank's rubric: {score}",
    },
    "instructor_score_help": {
        "zh": "百分比（如 75 或 75%）或得分/满分（如 1.5/2）",
        "en": "a percentage (e.g. 75 or 75 %) or points out of the total (e.g. 1.5/2)",
    },
    "instructor_confirm_score": {"zh": "确认得分", "en": "Confirm the score"},
    "instructor_score_missing": {"zh": "请填写得分。", "en": "Enter a score."},
    "instructor_score_invalid": {
        "zh": "无法读取得分 {score!r}：请填写 0–100 的百分比（如 75）或得分/满分（如 1.5/2）。",
        "en": "Cannot read the score {score!r}: enter a percentage from 0 to 100 (e.g. 75) or "
        "points out of the total (e.g. 1.5/2).",
    },
    "instructor_score_ambiguous": {
        "zh": "得分 {score!r} 有歧义：百分比请写 {percent}，得分请写成“得分/满分”（如 1.5/2）。",
        "en": "The score {score!r} is ambiguous: write {percent} for a percentage, or points "
        "out of the total such as 1.5/2.",
    },
    "instructor_score_points_range": {
        "zh": "得分 {score!r} 超出范围：得分必须在 0 到满分之间，满分大于 0。",
        "en": "The score {score!r} is out of range: points must be from 0 to a total above 0.",
    },
    "instructor_review_stale": {
        "zh": "打开此页后，{reviewer} 已评阅了这个答案（现在 {score}）。"
        "请看上方的评阅记录，需要时再评一次。",
        "en": "{reviewer} reviewed this answer after you opened this page (it is now {score}). "
        "Check the reviews above and review again if needed.",
    },
    "instructor_review_history": {"zh": "评阅记录", "en": "Reviews so far"},
    "question_changed_since_answer": {
        "zh": "你作答之后，这道题的题型改变了。",
        "en": "This question has changed its type since you answered it.",
    },
    "recorded_score": {"zh": "记录的得分：{score}。", "en": "Your recorded score: {score}."},
    "instructor_review_changed": {
        "zh": "打开此页后，这个答案的评阅已有变化。请看上方的评阅记录，需要时再评一次。",
        "en": "This answer's reviews changed after you opened this page. Check the reviews "
        "above and review again if needed.",
    },
    "instructor_reload_changed_again": {
        "zh": "确认期间磁盘上的内容又变了：请再次确认下面的题目。",
        "en": "The content on disk changed while you were confirming: confirm these again.",
    },
    "error_unstorable_text": {
        "zh": "提交的文字含有无法保存的字符（如 NUL）。",
        "en": "The text sent holds characters that cannot be stored (such as NUL).",
    },
    "instructor_not_open": {
        "zh": "答案 {id} 不是开放题答案：它的得分由系统自动评出。",
        "en": "Answer {id} is not an open answer: its score is the automatic grader's.",
    },
    "instructor_suggestion_hint": {
        "zh": "建议得分只统计找到的关键词（已高亮），分不出说反了的句子：请读完答案再定分。",
        "en": "The suggestion only counts the key phrases found (highlighted) and cannot tell a "
        "reversed statement from a right one: read the answer before scoring.",
    },
    "instructor_points_total": {
        "zh": "本题满分 {points:g} 分",
        "en": "this question is worth {points:g} points",
    },
    "instructor_review_entry": {
        "zh": "{at} UTC，{reviewer}：{score}",
        "en": "{at} UTC, {reviewer}: {score}",
    },
    "instructor_review_answer": {"zh": "评阅答案 {id}", "en": "Review answer {id}"},
    "instructor_open_answers": {"zh": "开放题答案", "en": "Open answers"},
    "instructor_no_open_answers": {"zh": "还没有开放题答案。", "en": "No open answers yet."},
    "instructor_awaiting": {"zh": "待评阅", "en": "awaiting review"},
    "instructor_review_link": {"zh": "评阅 / 修改", "en": "Review / correct"},
    "instructor_instructors": {"zh": "教师", "en": "Instructors"},
    "instructor_reload_confirm": {
        "zh": "新内容里没有下面这些题目，但它们已有学生的作答记录。记录会保留在数据库中，"
        "但在题目恢复之前不会计入成绩册。确定要重新加载吗？",
        "en": "The new content no longer has these questions, and learners' work is recorded "
        "for them. The records stay in the database but leave the gradebook until the "
        "question is back. Reload anyway?",
    },
    "instructor_reload_removed": {
        "zh": "{id}：{count} 条作答记录",
        "en": "{id}: {count} recorded answers or drill variants",
    },
    "instructor_reload_anyway": {"zh": "仍然重新加载", "en": "Reload anyway"},
    "instructor_reload_cancel": {"zh": "取消", "en": "Cancel"},
    "instructor_score_range": {
        "zh": "得分 {score!r} 超出范围：百分比最多为 100。",
        "en": "The score {score!r} is out of range: a percentage is at most 100.",
    },
    "instructor_comment_too_long": {
        "zh": "评语最多 {max} 个字符。",
        "en": "The comment may be at most {max} characters long.",
    },
    "instructor_no_answer": {"zh": "没有编号为 {id} 的答案。", "en": "There is no answer {id}."},
    "instructor_review_saved": {
        "zh": "已评阅 {learner} 对“{question}”的答案（{id}）：{score}。",
        "en": "Reviewed {learner}'s answer ({id}) to “{question}”: {score}.",
    },
    "instructor_no_students": {"zh": "还没有学生。", "en": "There are no students yet."},
    "instructor_students_range": {
        "zh": "第 {first}–{last} 名学生，共 {total} 名（按用户名排序）。",
        "en": "Students {first}–{last} of {total}, by user name.",
    },
    "instructor_students_pages": {"zh": "学生列表的页", "en": "Pages of the students list"},
    "page_previous": {"zh": "← 上一页", "en": "← Previous"},
    "page_next": {"zh": "下一页 →", "en": "Next →"},
    "page_of": {"zh": "第 {page} 页，共 {pages} 页", "en": "Page {page} of {pages}"},
    "error_bad_page": {
        "zh": "页码须为从 1 起的整数，而不是“{page}”。",
        "en": "The page must be a whole number from 1, not {page!r}.",
    },
    "error_no_page": {
        "zh": "没有第 {page} 页：最后一页是第 {last} 页。",
        "en": "There is no page {page}: the last page is {last}.",
    },
    "instructor_display_name": {"zh": "显示名", "en": "Display name"},
    "instructor_created": {"zh": "创建于", "en": "Created"},
    "instructor_skills_practised": {"zh": "练习过的技能", "en": "Skills practised"},
    "instructor_no_student": {"zh": "没有编号为 {id} 的学生。", "en": "There is no student {id}."},
    "instructor_no_progress": {"zh": "还没有记录。", "en": "Nothing recorded yet."},
    "instructor_reports_help": {
        "zh": "下载的文件只包含学生的作答记录，边生成边下载。CSV 为带 BOM 的 UTF-8，"
        "可直接用电子表格打开。",
        "en": "Downloads hold the students' work only and are streamed as they are "
        "written. CSV files are UTF-8 with a byte order mark, so spreadsheets open them "
        "as they are.",
    },
    "instructor_columns": {"zh": "下载文件各列的含义", "en": "What the downloads' columns hold"},
    "instructor_columns_help": {
        "zh": "文件里的得分、掌握度和总分都是 0 到 1 的小数：0.75 就是页面上的 75%。"
        "时间为 UTC 的 ISO 8601 格式，以 Z 结尾"
        "（如 2026-11-30T09:00:00Z；北京时间是 UTC 加 8 小时）。"
        "空单元格表示没有值。CSV 里电子表格会当作公式执行的文字，前面加了一个单引号。",
        "en": "Scores, mastery and totals in the files are fractions from 0 to 1: 0.75 is "
        "the 75% these pages show. Times are ISO 8601 in UTC, ending in Z "
        "(2026-11-30T09:00:00Z). An empty cell holds no value. In the CSV files, text a "
        "spreadsheet would run as a formula starts with an apostrophe.",
    },
    "instructor_gradebook_csv": {"zh": "成绩册（CSV）", "en": "Gradebook (CSV)"},
    "instructor_gradebook_help": {
        "zh": "每个学生一行：各题得分、各技能掌握度、总分、最近活动",
        "en": "one row per student: question scores, skill mastery, total, last activity",
    },
    "instructor_events_csv": {"zh": "作答事件（CSV）", "en": "Events (CSV)"},
    "instructor_events_jsonl": {"zh": "作答事件（JSON Lines）", "en": "Events (JSON Lines)"},
    "instructor_events_help": {
        "zh": "每次练习提交和每次答题各一行",
        "en": "one line per drill submission and per quiz answer",
    },
    "instructor_item_statistics": {"zh": "题目统计", "en": "Item statistics"},
    "instructor_item_statistics_help": {
        "zh": "难度（平均得分率）和区分度（该题得分与其余题总分的相关系数），定义同 Moodle。",
        "en": "Facility (mean score as a percentage) and discrimination (correlation of "
        "the item score with the rest of the test), as Moodle defines them.",
    },
    "instructor_points": {"zh": "分值", "en": "Points"},
    "instructor_mean_score": {"zh": "平均得分", "en": "Mean score"},
    "instructor_facility": {"zh": "难度（得分率）", "en": "Facility"},
    "instructor_discrimination": {"zh": "区分度", "en": "Discrimination"},
    "instructor_generated": {"zh": "生成于 {at}", "en": "Generated {at}"},
    "instructor_print_help": {
        "zh": "用浏览器的“打印”（Ctrl+P）打印或另存为 PDF；导航栏不会打印。",
        "en": "Print it, or save it as PDF, with the browser's Print (Ctrl+P); the "
        "navigation is left out.",
    },
    "instructor_chapter_total": {"zh": "章节总分", "en": "Chapter total"},
    "instructor_chapter_answers": {"zh": "章节题目的作答", "en": "Chapter answers"},
    "instructor_not_started": {"zh": "未开始", "en": "not started"},
    "instructor_total_awaiting": {
        "zh": "{count} 个答案待评阅，暂按 0 计",
        "en": "{count} awaiting review, counted as 0 until reviewed",
    },
    "instructor_drill_history": {"zh": "练习记录", "en": "Drill history"},
    "instructor_history_cut": {
        "zh": "这里是最近的 {shown} 次提交，共 {total} 次（全部提交见事件导出）。",
        "en": "The latest {shown} of {total} drill submissions (the events export has them all).",
    },
    "instructor_drill_scores": {
        "zh": "练习得分（从早到晚，0–100%）",
        "en": "Drill scores, oldest first (0 to 100 %)",
    },
    "instructor_when": {"zh": "时间（UTC）", "en": "When (UTC)"},
    "instructor_attempt": {"zh": "第几次", "en": "Attempt"},
    "instructor_drill_solution_note": {
        "zh": "练习的答案和详细解答属于每次生成的题目，见下方按种子生成的题目。",
        "en": "A drill's answer and worked solution belong to each generated variant: see "
        "the variant for the seed below.",
    },
}


# The skills the drills train and the chapter's questions are tagged with (`tags:` in the
# content, `DrillKind.skill`): what a learner reads instead of the tag.
# What each column of the downloads holds, for the reports page: a spreadsheet shows only the
# headers, and the files write scores as fractions where every page shows percentages.
# "<question>" and "mastery:<skill>" stand for the gradebook's columns of those names.
GRADEBOOK_COLUMNS: dict[str, dict[str, str]] = {
    "student_id": {"zh": "学生的用户编号", "en": "the student's user id"},
    "name": {"zh": "登录名", "en": "the login name"},
    "display_name": {"zh": "显示名", "en": "the display name"},
    "<question>": {
        "zh": "每道章节题一列，列名是题目 ID：最近一次作答的得分（0 到 1，乘以该题分值即得分数）；"
        "未作答、或开放题还在等评阅时为空",
        "en": "one column per chapter question, headed by its id: the score of the latest "
        "answer (0 to 1; times the question's points for points); empty if unanswered or "
        "while an open answer awaits review",
    },
    "mastery:<skill>": {
        "zh": "每个练习技能一列：掌握度（0 到 1，即进度页上的百分比）；从未评过分时为空",
        "en": "one column per drill skill: the mastery (0 to 1, the percentage the progress "
        "pages show); empty if never graded on the skill",
    },
    "total": {
        "zh": "章节总分：按分值加权的平均得分 Σ(分值×得分)/Σ分值（0 到 1），"
        "未作答和待评阅的题按 0 计，练习不计入；一道章节题都没答时为空",
        "en": "the chapter total: the points-weighted mean score, Σ(points × score) / "
        "Σ points (0 to 1), unanswered questions and answers awaiting review counting 0, "
        "drills not counted; empty if no chapter question is answered",
    },
    "last_activity": {
        "zh": "最近一次提交练习或作答的时间（UTC）；从未活动时为空",
        "en": "when the student last submitted a drill or answered a question (UTC); empty "
        "if never",
    },
}
EVENT_COLUMNS_HELP: dict[str, dict[str, str]] = {
    "event": {
        "zh": "drill（一次练习提交）或 quiz（一次章节题作答）",
        "en": "drill (a drill submission) or quiz (an answer to a chapter question)",
    },
    "event_id": {
        "zh": "这次提交或作答的编号",
        "en": "the submission's or the answer's id",
    },
    "student_id": {"zh": "学生的用户编号", "en": "the student's user id"},
    "student_name": {"zh": "学生的登录名", "en": "the student's login name"},
    "question_id": {"zh": "题目 ID", "en": "the question's id"},
    "kind": {
        "zh": "练习的类型，或章节题的题型（题库里已没有这道题时为空）",
        "en": "the drill's kind, or the chapter question's type (empty if the question is "
        "no longer in the bank)",
    },
    "skill": {"zh": "所练的技能", "en": "the skill it trains"},
    "seed": {
        "zh": "练习题目的随机种子（可在“预览”里重现这道题）；章节题为空",
        "en": "the drill variant's seed (Preview shows that variant again); empty for a "
        "chapter question",
    },
    "params": {
        "zh": "练习的参数（JSON）；章节题为空",
        "en": "the drill's parameters (JSON); empty for a chapter question",
    },
    "answer": {
        "zh": "学生提交的文字；选择题为所选选项，以逗号分隔",
        "en": "what the student wrote; for a choice question the chosen choices, separated "
        "by commas",
    },
    "cells": {
        "zh": "练习每个格子的评分结果（JSON）；章节题为空",
        "en": "the drill's result per cell (JSON); empty for a chapter question",
    },
    "raw_score": {
        "zh": "扣除重试罚分前的得分（0 到 1）；章节题为空",
        "en": "the score before the attempts penalty (0 to 1); empty for a chapter question",
    },
    "penalty": {
        "zh": "重试罚分扣掉的部分（0 到 1）；章节题为空",
        "en": "what the attempts penalty took off (0 to 1); empty for a chapter question",
    },
    "score": {
        "zh": "得分（0 到 1，练习为扣除罚分后）；开放题等评阅时为空",
        "en": "the score (0 to 1; a drill's after the penalty); empty while an open answer "
        "awaits review",
    },
    "attempt": {
        "zh": "对同一道练习题目或同一道章节题的第几次尝试",
        "en": "the attempt at this drill variant or at this chapter question",
    },
    "at": {"zh": "提交或作答的时间（UTC）", "en": "when it was submitted or answered (UTC)"},
}

SKILL_NAMES: dict[str, dict[str, str]] = {
    "embedding": {"zh": "词嵌入（Embedding）", "en": "Embedding lookup"},
    "positional_encoding": {"zh": "位置编码", "en": "Positional encoding"},
    "qkv": {"zh": "Q、K、V 投影", "en": "Q, K and V projections"},
    "scores": {"zh": "注意力分数", "en": "Attention scores"},
    "softmax": {"zh": "Softmax", "en": "Softmax"},
    "masking": {"zh": "掩码（Masked Self-Attention）", "en": "Masking"},
    "attention_output": {"zh": "注意力输出（加权求和）", "en": "Attention output"},
    "multi_head": {"zh": "多头注意力", "en": "Multi-head attention"},
    "add_norm": {"zh": "残差与归一化（Add & Norm）", "en": "Add & Norm"},
    "ffn": {"zh": "前馈网络（FFN）", "en": "Feed-forward network"},
    "cross_attention": {"zh": "交叉注意力（Cross-Attention）", "en": "Cross-attention"},
    "teacher_forcing": {"zh": "Teacher Forcing 与损失", "en": "Teacher forcing and the loss"},
    "decoding": {"zh": "自回归解码", "en": "Decoding"},
}

# A drill's title, by its kind (`quizsvc.drills.DRILL_KINDS`); the bank gives drills a
# prompt, not a title.
DRILL_TITLES: dict[str, dict[str, str]] = {
    "embedding_positional": {
        "zh": "Embedding 加位置编码：X' = X + PE",
        "en": "Embedding plus positional encoding: X' = X + PE",
    },
    "projection": {"zh": "计算 Q、K 或 V", "en": "Projecting to Q, K or V"},
    "score_row": {"zh": "一行缩放注意力分数", "en": "One row of scaled attention scores"},
    "softmax_row": {"zh": "对一行分数做 Softmax", "en": "The softmax of one row of scores"},
    "masked_row": {"zh": "掩码后的一行注意力权重", "en": "One row of masked attention weights"},
    "attention_output_row": {"zh": "一个 token 的注意力输出", "en": "One token's attention output"},
    "multi_head": {"zh": "多头注意力的输出", "en": "The multi-head attention output"},
    "add_norm": {"zh": "Add & Norm（残差 + LayerNorm）", "en": "Add & Norm (residual + LayerNorm)"},
    "ffn_row": {"zh": "一个 token 的前馈网络", "en": "The feed-forward network for one token"},
    "cross_attention_row": {
        "zh": "一个位置的交叉注意力",
        "en": "Cross-attention for one position",
    },
    "teacher_forcing_loss": {
        "zh": "Teacher Forcing 的交叉熵损失",
        "en": "The teacher-forcing cross-entropy loss",
    },
    "greedy_next_token": {"zh": "贪心解码：下一个 token", "en": "Greedy decoding: the next token"},
}

# The English words among the drills' tensor names and row and column labels, in Chinese
# (symbols such as Q, W1, σ², x + Sublayer(x) and the tokens read the same in both).
TENSOR_WORDS_ZH: dict[str, str] = {
    "score": "分数",
    "scores": "分数",
    "scores1": "分数1",
    "scores2": "分数2",
    "scores3": "分数3",  # multi_head with three heads
    "masked scores": "掩码后的分数",
    "e^score": "e^分数",
    "Σ e^score": "Σ e^分数",
    "weight": "权重",
    "angle": "角度",
    "ids": "id",
    "next token id": "下一个 token 的 id",
    "target": "目标",
    "label": "标签",
    "p(label)": "p(标签)",
    "decoder input": "Decoder 输入",
    "teacher forcing": "Teacher Forcing",
    "Loss": "损失",
    "hidden": "隐藏层",
    "pre-activation": "激活前",
    "centered": "中心化",
    "normalized": "归一化",
    "std": "标准差",
    "sum": "和",
}
_POSITION_LABEL = re.compile(r"pos (\d+)")


def tensor_word(word: str) -> str:
    """A tensor's name or label in the page's language ("pos 2 爱" is "位置 2 爱")."""
    if negotiated_language() != "zh":
        return word
    return TENSOR_WORDS_ZH.get(word) or _POSITION_LABEL.sub(r"位置 \1", word)


def localized_tensor(tensor: Tensor) -> Tensor:
    return dataclasses.replace(
        tensor,
        name=tensor_word(tensor.name),
        row_labels=tuple(tensor_word(label) for label in tensor.row_labels),
        col_labels=tuple(tensor_word(label) for label in tensor.col_labels),
    )


def localized_variant(variant: Variant) -> Variant:
    """The variant as a page shows it: its tensors' names and labels in the page's language
    (the stored variant, and the API, keep the drills' own)."""
    return with_each_tensor(variant, localized_tensor)


# Why the grader rejected an answer, in Chinese, by `quizsvc.grading.Rejection` code and
# formatted with the rejection's parameters. English is the grader's own message (str(exc)),
# which the JSON API and the logs carry too, so it is written once, there.
ANSWER_PROBLEMS_ZH: dict[str, str] = {
    "too_long": "答案超过了 {max} 个字符",
    "control_character": "答案里有控制字符",
    "empty": "答案是空的",
    "empty_between_commas": "第 {row} 行两个逗号之间少了一个值",
    "several_outer_brackets": "最外层只能有一对括号；矩阵请写成 [[1, 2], [3, 4]]",
    "semicolon_in_brackets": "括号里不能用“;”分行；矩阵请写成 [[1, 2], [3, 4]]",
    "empty_row": "第 {row} 行是空的",
    "brackets_too_deep": "括号嵌套超过了 {max} 层；矩阵请写成 [[1, 2], [3, 4]]",
    "unmatched_closing_bracket": (
        "括号不配对：第 {position} 个字符“{closing}”前面没有对应的“{opening}”"
    ),
    "unclosed_bracket": "括号不配对：有一个“{opening}”没有闭合",
    "text_outside_brackets": "括号外面多了“{text}”",
    "text_between_bracketed_rows": "括号括起的行之间多了“{text}”",
    "nan": "NaN 不是可以评分的数（第 {row} 行第 {column} 个值）",
    "division_by_zero": "“{text}”除以了零（第 {row} 行第 {column} 个值）",
    "not_a_number": "无法把“{text}”读成数字（第 {row} 行第 {column} 个值）",
    "too_large": "“{text}”太大，不是有限的数（第 {row} 行第 {column} 个值）；"
    "如果指无穷大，请写 inf",
    "ragged_rows": "第 {row} 行有 {count} 个值，第 1 行有 {width} 个",
    "not_rectangular": "答案不是规整的数表",
    "not_numbers": "答案只能包含数字",
    "too_many_dimensions": "答案必须是一个数、一行数或一个矩阵",
    "wrong_count": "应为 {rows} × {cols} 个值，实际是 {count} 个",
    "wrong_shape": "应为 {rows} × {cols} 个值，实际是 {got_rows} × {got_cols}",
    "unknown_choice": "“{choice}”不是选项之一",
    "unknown_choices": "{choices} 不是选项",
    "no_choice": "请先选择答案，再提交",
    "several_choices": "只能选择一个答案",
    "no_text": "请先写下答案，再提交",
    "lone_surrogate": "答案里有不成对的代理字符（半个 UTF-16 字符），它不是文本",
}


# Why a content file is rejected, in Chinese, by `quizsvc.bank.ContentProblem` code and
# formatted with the error's parameters, as `quizsvc.bank.format_problem` places them. English
# is the loader's own message (ContentError.message), which the CLI prints too.
_SAVE_AS_UTF8_ZH = "请另存为 UTF-8（在编辑器的“另存为”中把编码选为 UTF-8）"
_SYNTAX_ZH = "（YAML 语法错误：{detail}）"
CONTENT_PROBLEMS_ZH: dict[str, str] = {
    "content_dir_not_found": "找不到内容目录 {directory}",
    "no_chapters": "没有找到任何章节（没有 content/<章节 id>/ 目录）",
    "cannot_list_directory": "无法列出目录内容：{reason}",
    "broken_symlink": "无法打开符号链接指向的文件：{reason}",
    "cannot_stat": "无法读取：{reason}",
    "directory_not_file": "这是一个目录，不是文件",
    "not_regular_file": "这不是普通文件",
    "yml_suffix": "只读取以 .yaml 结尾的文件：请改名为 {stem}.yaml",
    "not_in_chapter_directory": "YAML 文件必须直接放在章节目录里（content/<章节 id>/<文件>.yaml）",
    "cannot_read": "无法读取：{reason}",
    "file_too_large": "文件大小为 {size} MB，内容文件最大 {max} MB：请把题目分到几个文件里",
    "file_too_large_unknown_size": "文件过大，内容文件最大 {max} MB：请把题目分到几个文件里",
    "no_question_files": "章节目录里没有题目文件",
    "missing_chapter_file": "缺少 {name}",
    "zip_archive": "这不是文本文件，而是 ZIP 压缩包，例如改了扩展名的 Word 文档（.docx）："
    "请用纯文本编辑器编写题目，并保存为 UTF-8",
    "utf16": f"文件的编码是 UTF-16，不是 UTF-8：{_SAVE_AS_UTF8_ZH}",
    "nul_bytes": "这不是文本文件（其中有 NUL 字节）",
    "not_utf8": f"文件不是有效的 UTF-8 文本：{_SAVE_AS_UTF8_ZH}",
    "gbk": "文件不是 UTF-8，很可能是 GBK/GB18030 编码（中文 Windows 编辑器默认这样保存）："
    + _SAVE_AS_UTF8_ZH,
    "invalid_character": "无效字符 {character}：{reason}",
    "empty_file": "文件是空的",
    "invalid_yaml_value": "无效的 YAML 值：{detail}",
    "yaml_syntax": "YAML 语法错误：{detail}",
    "question_mark_in_braces": "{{ }} 或 [ ] 里的文本含有“?”：请给文本加上引号，"
    '如 en: "Why ...?"' + _SYNTAX_ZH,
    "tab_indent": "缩进里有制表符（Tab）：YAML 只能用空格缩进" + _SYNTAX_ZH,
    "full_width_indent": "缩进里有全角空格（U+3000）：请用半角空格缩进" + _SYNTAX_ZH,
    "full_width_colon": "键“{key}”后面是全角冒号“\uff1a”：请写半角冒号加空格，即“{key}: ”"
    + _SYNTAX_ZH,
    "full_width_space_after_colon": "“{key}:”后面是全角空格（U+3000）：请写半角空格，"
    "即“{key}: ”" + _SYNTAX_ZH,
    "duplicate_key": "键“{key}”重复（第一次出现在第 {first_line} 行）",
    "top_level_list": "最外层必须是由键组成的映射，不能是列表",
    "top_level_string": "最外层必须是由键组成的映射，不能是单个字符串",
    "top_level_value": "最外层必须是由键组成的映射，不能是单个值",
    "missing": "缺少必需的键“{key}”",
    "extra_forbidden": "未知的键“{key}”",
    "unknown_key_after_comma": "未知的键“{key}”（{{ }} 里的逗号会开始一个新键："
    "含逗号的文本请加引号）",
    "correct_in_multiple_choice": "未知的键“correct”：多选题（multiple_choice）给每个选项一个"
    "分值（score），正确选项的分值之和为 1",
    "union_tag_invalid": "键 {key} 的值“{tag}”未知；应为以下之一：{expected}",
    "bad_slug": "请用小写字母、数字和单个连字符，如 qkv-origin",
    "bad_tag": "请用小写字母和数字，单词之间用 _ 或 - 连接，如 multi_head",
    "bad_choice_id": "请用字母和数字，单词之间用 _ 或 - 连接，如 A",
    "bad_drill_kind": "请用小写字母、数字和 _，如 softmax_row",
    "list_type": "必须是列表",
    "dict_type": "必须是由键组成的映射",
    "string_type": "必须是文本",
    "invalid_key": "键必须是文本；yes、on 或数字这样的键请加引号",
    "int_type": "必须是整数",
    "bool_type": "必须是布尔值（true 或 false）",
    "float_type": "必须是数字",
    "finite_number": "必须是有限的数",
    "greater_than": "必须大于 {gt}",
    "greater_than_equal": "必须大于或等于 {ge}",
    "less_than_equal": "必须小于或等于 {le}",
    "string_too_long": "最多 {max_length} 个字符",
    "literal_error": "只能是 {expected}",
    "blank_text": "文本不能为空，也不能只有空白",
    "at_least_one_item": "至少要有 1 项",
    "too_few_items": "至少要有 {count} 项",
    "boolean_not_number": "应为数字，实际是 {got}",
    "not_a_number": "应为数字或 'inf'/'-inf'，实际是 {got}",
    "several_numbers_in_text": "应为数字或 'inf'/'-inf'，实际是 {got}："
    "几个数请写成列表，[{written}]",
    "full_width_number": "应为数字或 'inf'/'-inf'，实际是 {got}：请用半角数字书写，{written}",
    "quoted_number": "应为数字或 'inf'/'-inf'，实际是 {got}：加了引号的数字是文本，"
    "请去掉引号，{written}",
    "nan_answer": "NaN 不能作为答案",
    "empty_number_list": "数字列表不能为空",
    "ragged_matrix": "矩阵各行的长度必须相同：第 0 行有 {width} 个值，第 {row} 行有 {count} 个",
    "numbers_and_lists": "数字和列表混在一起；矩阵请写成由行组成的列表",
    "duplicate_choice_id": "选项 id“{id}”重复（choices[{other}] 也是）",
    "correct_not_a_choice": "正确选项“{correct}”不在选项 {choices} 之中",
    "scores_not_one": "正确选项的正分值之和必须是 1，而不是 {total}",
    "duplicate_rubric_key": "评分要点的键“{key}”重复（rubric[{other}] 也是）",
    "chapter_id_mismatch": "章节 id“{id}”必须与其目录名“{directory}”相同",
    "duplicate_question_id": "题目 id“{id}”重复（第一次定义在 {first}）",
    "duplicate_order": "顺序 {order} 已被章节“{chapter}”使用",
    "unknown_drill_kind": "未知的练习类型“{kind}”；已有的类型：{known}",
}


# A drill kind's own rules on its params, in Chinese, by `quizsvc.drills.ParamsProblem` code;
# English is the drill's own message, which the CLI prints too.
DRILL_PARAMS_PROBLEMS_ZH: dict[str, str] = {
    "params_not_even": "{name} 必须是偶数（2、4 或 6）",
    "params_not_below": "{name} 必须小于 {bound_name} = {bound}",
    "params_no_future_to_mask": "position 必须小于 n - 1 = {limit}：最后一行没有可以遮住的未来位置",
    "params_heads_do_not_divide_width": "d_model = {d_model} 必须能被 n_heads 整除",
    "params_head_without_head_output": "head 只与 part: head_output 一起使用（投影用到所有的头）",
    "params_head_above_heads": "head 从 1 数起，最大为 n_heads = {n_heads}",
    "params_position_without_position_reduction": "position 只与 reduction: position 一起使用，"
    "不能与 {reduction} 一起使用",
    "params_position_beyond_decoder": "position 最大为 target_length = {target_length}"
    "（Decoder 输入有 target_length + 1 个位置）",
    "params_generated_beyond_vocabulary": "generated 最大为 vocab_size - 3 = {limit}："
    "已生成的词（I、love、you）必须在词表里",
}


# The self-test's findings in Chinese, by `quizsvc.selftest.Finding` code and formatted with
# the finding's parameters; English is the self-test's own text, which the CLI prints too.
SELFTEST_FINDINGS_ZH: dict[str, str] = {
    "generate_failed": "{error}",
    "expected_rejected": "期望答案“{text}”被拒绝：{rejection}",
    "expected_not_full_score": "期望答案“{text}”的得分是 {score}，不是 1；被判错的单元格：{cells}",
    "perturbed_rejected": "扰动后的答案“{text}”被拒绝：{rejection}",
    "mistake_accepted": "单元格 [{row}, {col}] = {submitted}（期望值 {expected}）被判为正确："
    "容差（atol={atol}，rtol={rtol}）太宽",
    "unperturbed_marked_wrong": "单元格 [{row}, {col}] 没有被扰动，却被判为错误",
    "perturbed_full_score": "扰动后的答案得分是 {score}，没有低于 1",
    "all_or_nothing_partial": "全对才得分（all_or_nothing）的答案有错误的单元格，却得了 {score}",
    "tolerance_too_loose": "单元格 [{row}, {col}]（期望值 {expected}）接受与它相差不超过"
    " {half_width} 的答案，但 {mistake} 这样的常见错误必须留有余量地判错：这里的容差最多为"
    " {limit}",
    "wrong_shape_graded": "{rows} × {cols} 的答案（“{text}”）被评了分（得分 {score}），没有被拒绝",
    "not_a_number_graded": "不是数字的文本（“{text}”）被评了分（得分 {score}），没有被拒绝",
    "stored_failed": "{error}",
    "stored_differs": "题目经过 JSON 存取后与原来不同",
    "stored_not_reproduced": "用种子和记录的参数不能重新生成同一道题目",
    "reference_misses_points": "参考答案不含评分要点{points}的任何短语：评阅队列会为它建议 {score}",
    "tighter_than_kind": "容差 atol={atol} 比该练习类型的 atol={kind_atol} 更严，"
    "后者已考虑到手算时每一步的舍入",
}
SELFTEST_CHECKS_ZH: dict[str, str] = {
    "generate": "生成",
    "expected": "期望答案",
    "perturbed": "扰动答案",
    "tolerance": "容差",
    "malformed": "格式错误的答案",
    "stored": "存储",
    "reference (zh)": "参考答案（中文）",
    "reference (en)": "参考答案（英文）",
}


def negotiated_language() -> str:
    chosen = session.get("lang")
    if chosen in LANGUAGES:
        return chosen
    return request.accept_languages.best_match(LANGUAGES, default=DEFAULT_LANGUAGE)


def translate(key: str, **values: object) -> str:
    """The message in the page's language; with ``count=1``, the key's ``_singular`` form if
    it has one (English singulars; Chinese has none, its ``_singular`` forms repeat the text)."""
    if values.get("count") == 1 and f"{key}_singular" in MESSAGES:
        key = f"{key}_singular"
    text = MESSAGES[key][negotiated_language()]
    return text.format(**values) if values else text


def answer_problem(rejection: AnswerRejected) -> str:
    """Why an answer was rejected, in the page's language, as a clause ("the answer is
    empty"), to follow a label; `as_sentence` makes it one on its own."""
    if negotiated_language() == "en" or rejection.code is None:
        return str(rejection)
    return ANSWER_PROBLEMS_ZH[rejection.code].format(**rejection.params)


def content_problem(error: ContentError) -> str:
    """What is wrong with the content, in the page's language; a message that has no code
    (pydantic's own) stays in English, as the loader wrote it."""
    if negotiated_language() == "en" or error.code is None:
        return error.message
    chinese = (
        DRILL_PARAMS_PROBLEMS_ZH if isinstance(error.code, ParamsProblem) else CONTENT_PROBLEMS_ZH
    )
    return format_problem(chinese[error.code], error.params, "（实际是 {got}）", "空值")


def selftest_problem(problem: Problem) -> str:
    """A self-test finding (a failure or a note) in the page's language."""
    if negotiated_language() == "en":
        return str(problem)
    values = dict(problem.params)
    for name, value in values.items():
        if isinstance(value, AnswerRejected):
            values[name] = answer_problem(value)
    if problem.code is Finding.REFERENCE_MISSES_POINTS:
        values["points"] = "；".join(
            f"“{key}”（短语：{'、'.join(phrases)}）" for key, phrases in values["points"]
        )
    return SELFTEST_FINDINGS_ZH[problem.code].format(**values)


def selftest_check(check: Check) -> str:
    """A failed check, as the CLI lists it ("perturbed (seed 3): FAILED: ..."), in the page's
    language."""
    if negotiated_language() == "en":
        return str(check)
    seed = "" if check.seed is None else f"（种子 {check.seed}）"
    found = "；".join(selftest_problem(problem) for problem in check.problems)
    return f"{SELFTEST_CHECKS_ZH[check.name]}{seed}：失败" + (f"：{found}" if found else "")


def selftest_summary(report: SelfTestReport) -> str:
    if negotiated_language() == "en":
        return report.summary()
    tested = len(report.questions)
    return (
        f"测试了 {tested} 道题（{report.check_count} 项检查）：{tested - len(report.failed)} 道"
        f"通过，{len(report.failed)} 道失败；跳过 {len(report.skipped)} 道（选择题）"
    )


def as_sentence(clause: str) -> str:
    """A clause (the grader's messages are written to follow a label) shown on its own: a
    capital and a full stop in English, a full stop in Chinese."""
    if not clause:
        return clause
    if negotiated_language() == "zh":
        return clause if clause.endswith(("。", "！", "？")) else clause + "。"
    clause = clause[0].upper() + clause[1:]
    return clause if clause.endswith((".", "!", "?")) else clause + "."


def skill_name(skill: str) -> str:
    names = SKILL_NAMES.get(skill)
    # a tag added to the content after this catalog: readable, if not translated
    return names[negotiated_language()] if names else skill.replace("_", " ")


def drill_title(kind: str) -> str:
    titles = DRILL_TITLES.get(kind)
    return titles[negotiated_language()] if titles else kind.replace("_", " ")


def question_title(question_id: str, length: int = 60) -> str:
    """What a learner calls a question: a drill's title, else the start of its prompt."""
    question = bank().questions.get(question_id)
    if question is None:
        return question_id  # no longer in the bank: its id is all there is to show
    if isinstance(question, DrillQuestion):
        return drill_title(question.kind)
    prompt = Markup(render_markdown(localize(question.prompt, negotiated_language())))
    text = " ".join(prompt.striptags().split())
    return text if len(text) <= length else text[: length - 1].rstrip() + "…"


def init_app(app: Flask) -> None:
    app.jinja_env.globals["t"] = translate
    # for templates shared with pages whose views do not pass names (the instructor's)
    app.jinja_env.globals["skill_name"] = skill_name
    app.jinja_env.globals["question_title"] = question_title
    app.jinja_env.globals["content_problem"] = content_problem
    app.jinja_env.globals["selftest_problem"] = selftest_problem
    app.jinja_env.globals["selftest_check"] = selftest_check
    app.jinja_env.globals["selftest_summary"] = selftest_summary

    @app.context_processor
    def _language() -> dict[str, str]:
        return {"lang": negotiated_language()}
