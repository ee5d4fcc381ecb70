module tb;
    reg        clk = 1'b0;
    reg        rst, push, pop;
    reg  [7:0] din;
    wire [7:0] top;
    wire       empty, full;
    wire [3:0] depth;
    reg  [7:0] m_stack [0:7];
    reg  [7:0] exp_top;
    integer    m_depth, phase;
    integer errors, samples, cyc, seed;

    lifo8 dut (.clk(clk), .rst(rst), .push(push), .din(din), .pop(pop),
               .top(top), .empty(empty), .full(full), .depth(depth));

    always #5 clk = ~clk;

    initial begin
        errors = 0; samples = 0; seed = 64;
        rst = 1'b1; push = 0; pop = 0; din = 0; m_depth = 0;
        for (cyc = 0; cyc < 1200; cyc = cyc + 1) begin
            @(posedge clk);
            if (rst) m_depth = 0;
            else if (push && pop && m_depth > 0) m_stack[m_depth - 1] = din;
            else if (push && m_depth < 8) begin m_stack[m_depth] = din; m_depth = m_depth + 1; end
            else if (pop && !push && m_depth > 0) m_depth = m_depth - 1;
            @(negedge clk);
            rst = (cyc < 1) || (cyc == 900);
            phase = (cyc / 40) % 3;  // mostly pushing, mostly popping, mixed
            push = ($random(seed) & 3) < (phase == 0 ? 3 : phase == 1 ? 1 : 2);
            pop = ($random(seed) & 3) < (phase == 0 ? 1 : phase == 1 ? 3 : 2);
            din = $random(seed);
            #1;
            exp_top = (m_depth == 0) ? 8'h00 : m_stack[m_depth - 1];
            samples = samples + 1;
            if (top !== exp_top) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=top expected=%h got=%h depth=%0d", $time, exp_top, top, m_depth);
            end
            if (depth !== m_depth[3:0]) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=depth expected=%h got=%h", $time, m_depth[3:0], depth);
            end
            if ({empty, full} !== {m_depth == 0, m_depth == 8}) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal={empty,full} expected=%h got=%h", $time, {m_depth == 0, m_depth == 8}, {empty, full});
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
